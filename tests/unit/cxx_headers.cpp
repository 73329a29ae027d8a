// Compiles the umbrella header as C++ and calls one function through it.
#include <oroya/oroya.h>

int main() {
    oroya_quat q = oroya_quat_identity();
    return q.w == 1.0f ? 0 : 1;
}
