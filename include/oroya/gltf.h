/* oroya/gltf.h - glTF 2.0 I/O: parse, validate, decode accessors, import, export.
 *
 * What it does: reads .gltf (JSON, with external .bin files resolved relative to the file
 * and base64 data: URIs) and .glb, into transparent read-only structs that follow the glTF
 * spec's shape (indices stay indices). The steps are separate, as in cgltf:
 *   1. oroya_gltf_parse / oroya_gltf_parse_file: structure only (JSON syntax, GLB container,
 *      field types). Indices are stored as written; nothing is dereferenced.
 *   2. oroya_gltf_load_buffers: fills every buffer's bytes (GLB BIN chunk, data: URI,
 *      external file). parse_file does this for you.
 *   3. oroya_gltf_validate: every index in range, every accessor inside its buffer view and
 *      buffer, component types allowed for their semantic, node graph a forest, animation
 *      sampler counts, key times strictly increasing. Nothing else in this header may be
 *      called on data that did not validate.
 *   4. oroya_gltf_accessor_unpack_floats / _uints: decode an accessor (any component type,
 *      byteStride, sparse, normalized integers scaled like three.js) into caller memory.
 *   5. oroya_gltf_import: build a scene, clips, skins, geometries and materials (see below).
 *      oroya_gltf_load does steps 1-5 in one call.
 *   6. oroya_gltf_write: a scene with meshes, skins, cameras and clips to .gltf or .glb.
 * What it does not do: Draco/meshopt compression, KHR_texture_transform or any other
 * extension except KHR_mesh_quantization (files that *require* one fail validation with
 * OROYA_ERR_UNSUPPORTED); primitives other than triangle lists; textures other than base
 * color. docs/gltf.md lists what is and is not supported.
 *
 * Errors: every call fills an oroya_error whose message starts with the JSON path
 * ("animations[2].samplers[0].output: accessor 17 has 12 elements, expected 36"). Untrusted
 * input never crashes, never reads out of bounds and never allocates more than the file
 * backs: a declared count is checked against the bytes that hold it before any allocation.
 *
 * Ownership: oroya_gltf_data owns all its memory (names, arrays, buffer bytes); one call,
 * oroya_gltf_free, releases it. Memory comes from the desc's allocator (zero = malloc). The
 * JSON parser (cJSON) uses the C library's malloc for its temporary tree.
 * Threading: a oroya_gltf_data is immutable after validation and may be read from any thread.
 * Nothing here keeps global state, so loads on different threads do not interact.
 *
 * Loading a character in one call. Example (given: oroya_error err):
 *   oroya_gltf_model *model = NULL;
 *   if (oroya_gltf_load("CesiumMan.glb", NULL, &model, &err) != OROYA_OK) { puts(err.message); return; }
 *   const oroya_clip *walk = oroya_gltf_model_find_clip(model, "animation_0");
 *   ... model->scene, model->skeletons[0], model->skinned_meshes[0] ...
 *   oroya_gltf_model_free(model);
 *
 * Or step by step. Example:
 *   oroya_gltf_data *g = NULL;
 *   oroya_error err = {0};
 *   if (oroya_gltf_parse_file(NULL, "CesiumMan.gltf", &g, &err) ||
 *       oroya_gltf_validate(g, &err)) { fprintf(stderr, "%s\n", err.message); return; }
 *   size_t n = oroya_gltf_accessor_float_count(g, 3);
 *   float *v = malloc(n * sizeof *v);
 *   oroya_gltf_accessor_unpack_floats(g, 3, v, n, &err);
 *   oroya_gltf_free(g);
 */
#ifndef OROYA_GLTF_H
#define OROYA_GLTF_H

#include "oroya/base.h"
#include "oroya/clip.h"
#include "oroya/geometry.h"
#include "oroya/math.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* "No index" for optional references (a primitive without indices, a node without mesh). */
#define OROYA_GLTF_NONE UINT32_MAX

/* Limits. A file beyond one of these fails with OROYA_ERR_LIMIT. */
#define OROYA_GLTF_MAX_FILE_SIZE ((uint64_t)1 << 31) /* .gltf, .glb or .bin, bytes */
/* An accessor without a bufferView is all zeros (plus sparse values): no bytes back its
 * count, so its decoded size is capped. */
#define OROYA_GLTF_MAX_UNBACKED_BYTES ((uint64_t)1 << 26)
/* JSON values (each array, object, string, number, true, false and null; an object's keys
 * not counted) in a .gltf or a GLB's JSON chunk, counted before anything is parsed: the
 * parse's JSON tree costs about 80 bytes a value, so this caps it near 1.3 GB where a 2 GiB
 * file of "{}," would make 715 million values (57 GB). 16 values a node (a name, a mesh,
 * translation, rotation and scale) for the scene's most nodes, OROYA_SCENE_MAX_NODES. */
#define OROYA_GLTF_MAX_JSON_VALUES ((uint64_t)1 << 24)

typedef enum oroya_gltf_component_type {
    OROYA_GLTF_COMPONENT_NONE = 0,
    OROYA_GLTF_BYTE = 5120,
    OROYA_GLTF_UNSIGNED_BYTE = 5121,
    OROYA_GLTF_SHORT = 5122,
    OROYA_GLTF_UNSIGNED_SHORT = 5123,
    OROYA_GLTF_UNSIGNED_INT = 5125,
    OROYA_GLTF_FLOAT = 5126
} oroya_gltf_component_type;

typedef enum oroya_gltf_type {
    OROYA_GLTF_TYPE_NONE = 0,
    OROYA_GLTF_SCALAR,
    OROYA_GLTF_VEC2,
    OROYA_GLTF_VEC3,
    OROYA_GLTF_VEC4,
    OROYA_GLTF_MAT2,
    OROYA_GLTF_MAT3,
    OROYA_GLTF_MAT4
} oroya_gltf_type;

typedef enum oroya_gltf_path {
    OROYA_GLTF_PATH_UNKNOWN = 0, /* e.g. an extension's path; loaders skip the channel */
    OROYA_GLTF_PATH_TRANSLATION,
    OROYA_GLTF_PATH_ROTATION,
    OROYA_GLTF_PATH_SCALE,
    OROYA_GLTF_PATH_WEIGHTS
} oroya_gltf_path;

typedef enum oroya_gltf_interpolation {
    OROYA_GLTF_LINEAR = 0,
    OROYA_GLTF_STEP,
    OROYA_GLTF_CUBICSPLINE
} oroya_gltf_interpolation;

typedef enum oroya_gltf_attribute_kind {
    OROYA_GLTF_ATTR_OTHER = 0, /* custom ("_FOO") or unknown: not validated, kept */
    OROYA_GLTF_ATTR_POSITION,
    OROYA_GLTF_ATTR_NORMAL,
    OROYA_GLTF_ATTR_TANGENT,
    OROYA_GLTF_ATTR_TEXCOORD,
    OROYA_GLTF_ATTR_COLOR,
    OROYA_GLTF_ATTR_JOINTS,
    OROYA_GLTF_ATTR_WEIGHTS
} oroya_gltf_attribute_kind;

typedef struct oroya_gltf_buffer {
    char *name;           /* NULL when absent */
    char *uri;            /* NULL: the GLB BIN chunk */
    uint64_t byte_length; /* as declared */
    const uint8_t *data;  /* byte_length bytes after load_buffers, else NULL */
} oroya_gltf_buffer;

typedef struct oroya_gltf_buffer_view {
    char *name;
    uint32_t buffer;
    uint64_t byte_offset;
    uint64_t byte_length;
    uint32_t byte_stride; /* 0 = tightly packed */
} oroya_gltf_buffer_view;

typedef struct oroya_gltf_sparse {
    uint32_t count; /* 0 = not sparse */
    uint32_t indices_buffer_view;
    uint64_t indices_byte_offset;
    oroya_gltf_component_type indices_component_type;
    uint32_t values_buffer_view;
    uint64_t values_byte_offset;
} oroya_gltf_sparse;

typedef struct oroya_gltf_accessor {
    char *name;
    uint32_t buffer_view; /* OROYA_GLTF_NONE: all zeros (then sparse) */
    uint64_t byte_offset;
    oroya_gltf_component_type component_type;
    bool normalized;
    uint32_t count; /* elements */
    oroya_gltf_type type;
    oroya_gltf_sparse sparse;
} oroya_gltf_accessor;

typedef struct oroya_gltf_attribute {
    char *name; /* "POSITION", "TEXCOORD_0", "_CUSTOM" */
    oroya_gltf_attribute_kind kind;
    uint32_t set; /* the _n of TEXCOORD_n etc., 0 otherwise */
    uint32_t accessor;
} oroya_gltf_attribute;

typedef struct oroya_gltf_morph_target {
    uint32_t attribute_count;
    oroya_gltf_attribute *attributes;
} oroya_gltf_morph_target;

typedef struct oroya_gltf_primitive {
    uint32_t attribute_count;
    oroya_gltf_attribute *attributes;
    uint32_t indices;  /* accessor or OROYA_GLTF_NONE */
    uint32_t material; /* OROYA_GLTF_NONE: default material */
    uint32_t mode;     /* 4 = triangles (default) */
    uint32_t target_count;
    oroya_gltf_morph_target *targets;
} oroya_gltf_primitive;

typedef struct oroya_gltf_mesh {
    char *name;
    uint32_t primitive_count;
    oroya_gltf_primitive *primitives;
    uint32_t weight_count; /* default morph weights */
    float *weights;
} oroya_gltf_mesh;

typedef struct oroya_gltf_node {
    char *name;
    uint32_t child_count;
    uint32_t *children;
    uint32_t mesh, skin, camera; /* OROYA_GLTF_NONE when absent */
    bool has_matrix;
    float matrix[16];     /* column-major; identity when absent */
    float translation[3]; /* defaults 0,0,0 / 0,0,0,1 / 1,1,1 */
    float rotation[4];    /* x, y, z, w */
    float scale[3];
    uint32_t weight_count;
    float *weights;
} oroya_gltf_node;

typedef struct oroya_gltf_skin {
    char *name;
    uint32_t joint_count;
    uint32_t *joints;
    uint32_t inverse_bind_matrices; /* accessor or OROYA_GLTF_NONE (identity) */
    uint32_t skeleton;              /* node or OROYA_GLTF_NONE */
} oroya_gltf_skin;

typedef struct oroya_gltf_sampler { /* animation sampler */
    uint32_t input, output;         /* accessors */
    oroya_gltf_interpolation interpolation;
} oroya_gltf_sampler;

typedef struct oroya_gltf_channel {
    uint32_t sampler; /* index into the animation's samplers */
    uint32_t node;    /* OROYA_GLTF_NONE: ignored (an extension targets it) */
    oroya_gltf_path path;
} oroya_gltf_channel;

typedef struct oroya_gltf_animation {
    char *name;
    uint32_t sampler_count;
    oroya_gltf_sampler *samplers;
    uint32_t channel_count;
    oroya_gltf_channel *channels;
    /* extras.markers: [{"time": seconds, "name": string}, ...] (docs/gltf.md, "Markers");
     * the importer gives them to the clip (oroya_clip_set_markers). */
    uint32_t marker_count;
    oroya_marker *markers;
    /* extras.curves: [{"name": string, "interpolation": "step" | "linear" | "smooth" |
     * "cubicspline" (default "linear"), "times": [...], "values": [...]}, ...] (docs/gltf.md,
     * "Curves"): CURVE tracks (oroya/track.h) the importer adds to the clip. The arrays
     * belong to the data; validated when the clip is made. */
    uint32_t curve_count;
    oroya_track *curves;
    /* NULL, or why an entry of this animation's extras.markers or extras.curves was dropped
     * (the first one): extras are free for any tool to fill (glTF 3.12), so an entry in
     * another shape than oroya's does not refuse the file; it is left out and the others are
     * read (a value that is not an array reads as an empty list). The message names the place
     * ("animations[0].extras.markers[1]: expected {...}"). */
    char *ignored_extras;
} oroya_gltf_animation;

typedef struct oroya_gltf_scene {
    char *name;
    uint32_t node_count;
    uint32_t *nodes;
} oroya_gltf_scene;

typedef struct oroya_gltf_camera {
    char *name;
    bool orthographic;
    float yfov, aspect_ratio; /* perspective; aspect 0 = unset */
    float xmag, ymag;         /* orthographic */
    float znear, zfar;        /* zfar 0 = infinite (perspective only) */
} oroya_gltf_camera;

typedef struct oroya_gltf_material {
    char *name;
    float base_color_factor[4];  /* default 1,1,1,1 */
    uint32_t base_color_texture; /* texture or OROYA_GLTF_NONE */
    uint32_t base_color_texcoord;
    float metallic_factor, roughness_factor;
    bool double_sided;
} oroya_gltf_material;

typedef struct oroya_gltf_texture {
    char *name;
    uint32_t source;  /* image or OROYA_GLTF_NONE */
    uint32_t sampler; /* texture sampler or OROYA_GLTF_NONE */
} oroya_gltf_texture;

/* A texture sampler (glTF `samplers`): filters 0 when unset (9728 NEAREST, 9729 LINEAR,
 * 9984..9987 mipmap modes), wraps default 10497 REPEAT (33071 CLAMP_TO_EDGE, 33648
 * MIRRORED_REPEAT); validate refuses other values. */
typedef struct oroya_gltf_texture_sampler {
    char *name;
    uint32_t mag_filter, min_filter;
    uint32_t wrap_s, wrap_t;
} oroya_gltf_texture_sampler;

typedef struct oroya_gltf_image {
    char *name;
    char *uri; /* NULL when in a buffer view */
    char *mime_type;
    uint32_t buffer_view; /* OROYA_GLTF_NONE when uri is used */
} oroya_gltf_image;

typedef struct oroya_gltf_data {
    bool is_glb;
    bool uses_mesh_quantization; /* KHR_mesh_quantization in extensionsUsed */
    uint32_t scene;              /* default scene or OROYA_GLTF_NONE */
    uint32_t buffer_count;
    oroya_gltf_buffer *buffers;
    uint32_t buffer_view_count;
    oroya_gltf_buffer_view *buffer_views;
    uint32_t accessor_count;
    oroya_gltf_accessor *accessors;
    uint32_t mesh_count;
    oroya_gltf_mesh *meshes;
    uint32_t node_count;
    oroya_gltf_node *nodes;
    uint32_t skin_count;
    oroya_gltf_skin *skins;
    uint32_t animation_count;
    oroya_gltf_animation *animations;
    uint32_t scene_count;
    oroya_gltf_scene *scenes;
    uint32_t camera_count;
    oroya_gltf_camera *cameras;
    uint32_t material_count;
    oroya_gltf_material *materials;
    uint32_t texture_count;
    oroya_gltf_texture *textures;
    uint32_t image_count;
    oroya_gltf_image *images;
    uint32_t texture_sampler_count;
    oroya_gltf_texture_sampler *texture_samplers;
    uint32_t extension_required_count;
    char **extensions_required;
    uint32_t extension_used_count;
    char **extensions_used;
    char *copyright; /* asset.copyright (the licence or attribution), NULL when absent */
    /* What the file holds that import reads past, so that a model and its export lack it
     * (docs/gltf.md, "Export"): one line per extension in extensionsUsed other than
     * KHR_mesh_quantization (the first 16, then one line for the rest), and one per kind
     * (alpha mode and cutoff, emissive, normal / occlusion / metallic-roughness textures,
     * vertex and morph target attributes import does not read, extras, JOINTS_n without
     * WEIGHTS_n or the reverse, a node with a matrix and TRS) naming its first place and count: "materials[0].alphaMode: alpha mode and
     * cutoff not kept (...) (2 in the file)". Never a reason to refuse the file. */
    uint32_t unkept_count;
    char **unkept;
    /* + private bookkeeping (allocator, base directory, GLB chunk) */
} oroya_gltf_data;

/* A user reader for external URIs (buffers and images; never data: URIs or the GLB BIN
 * chunk), set in oroya_gltf_desc or oroya_gltf_import_desc to read through a virtual file
 * system or an archive, or to allow less than the default. Called with the URI as the file
 * writes it, `path` (base_dir joined with the percent-decoded URI, without "?query" or
 * "#fragment": the file the default reader would open) and base_dir ("" when parsed from
 * memory without one). It either returns OROYA_OK with *bytes allocated by
 * oroya_allocator_alloc(allocator, *size, 1) (NULL when *size is 0), which oroya then owns
 * and frees with the same allocator, or an error code (then *bytes is ignored: the callback
 * frees what it allocated; the message it puts in err, if any, is kept after the URI). More than max_size bytes fail with OROYA_ERR_LIMIT (the
 * bytes are freed). Errors name the JSON place and the URI ("buffers[0]: \"a.bin\": ...").
 * The callback decides what may be read: the base directory confinement of the default
 * reader does not apply to it, and absolute paths reach it. URIs with a scheme ("http:")
 * are refused before it is called. It must not call back into the same oroya_gltf_data. */
typedef oroya_result (*oroya_gltf_read_fn)(void *user, const char *uri, const char *path,
                                           const char *base_dir, uint64_t max_size,
                                           const oroya_allocator *allocator, void **bytes,
                                           uint64_t *size, oroya_error *err);

typedef struct oroya_gltf_desc {
    oroya_allocator allocator; /* zero = malloc/free */
    /* Directory that external URIs are relative to when parsing from memory. NULL: external
     * URIs fail in load_buffers (OROYA_ERR_NOT_FOUND). parse_file uses the file's folder. */
    const char *base_dir;
    /* false (default): an external URI (buffer or image) must name a regular file inside
     * base_dir once percent-escapes, "..", and symbolic links are resolved; "../x.bin",
     * "%2e%2e/x.bin", absolute paths and links that lead out fail with OROYA_ERR_ACCESS
     * naming the URI. true: any path the process can read, absolute ones included (for
     * files the application trusts). Either way only regular files are read: a FIFO, device
     * or directory fails with OROYA_ERR_IO, never blocks. */
    bool allow_outside_base_dir;
    /* NULL (default): external URIs are read as above. Otherwise every external URI is read
     * by this callback (see oroya_gltf_read_fn), with read_user as its first argument; with
     * it, a file parsed from memory without base_dir may have external URIs. */
    oroya_gltf_read_fn read_file;
    void *read_user;
} oroya_gltf_desc;

/* Parses a .gltf (JSON) or .glb (detected by the "glTF" magic) held in memory. Checks
 * structure only: JSON syntax, GLB header and chunks, that each field has its JSON type and
 * each index is a non-negative integer. `data` is not kept (the BIN chunk is copied). On
 * success *out owns everything; free it with oroya_gltf_free. desc may be NULL.
 * Errors: OROYA_ERR_INVALID_ARGUMENT (NULL data/out), OROYA_ERR_PARSE (bad JSON, bad GLB,
 * wrong JSON type, a raw NUL byte, text that is not UTF-8), OROYA_ERR_LIMIT (size, JSON
 * nested deeper than 1000 levels, more than OROYA_GLTF_MAX_JSON_VALUES JSON values, counted
 * before the JSON is parsed, "(json): N values, the limit is M"; more than
 * OROYA_SCENE_MAX_NODES entries in "nodes", a node's "children", a skin's "joints" or a
 * scene's "nodes", refused before anything is allocated for them, "nodes: N entries, the
 * limit is 1048575"), OROYA_ERR_OUT_OF_MEMORY. */
oroya_result oroya_gltf_parse(const oroya_gltf_desc *desc, const void *data, size_t size,
                              oroya_gltf_data **out, oroya_error *err);

/* Reads the file, parses it and loads its buffers (relative to the file's folder).
 * Errors: as oroya_gltf_parse and oroya_gltf_load_buffers; OROYA_ERR_NOT_FOUND when the file
 * (or a folder on its path) does not exist, OROYA_ERR_IO when it cannot be read or is not a
 * regular file (a FIFO, device or directory is refused without blocking); the message gives
 * the C library's reason. */
oroya_result oroya_gltf_parse_file(const oroya_gltf_desc *desc, const char *path,
                                   oroya_gltf_data **out, oroya_error *err);

/* Fills buffers[i].data for every buffer: the GLB BIN chunk, a base64 data: URI or a file
 * relative to the base directory (percent-escapes decoded; other schemes are refused; the
 * file must stay inside the base directory unless the desc's allow_outside_base_dir).
 * Each source must hold at least byte_length bytes. Idempotent.
 * Errors: OROYA_ERR_PARSE (bad base64 or data: URI), OROYA_ERR_NOT_FOUND (missing file or
 * no BIN chunk), OROYA_ERR_IO (unreadable, or not a regular file), OROYA_ERR_ACCESS (a file
 * outside the base directory: "..", absolute path, symbolic link), OROYA_ERR_INVALID_DATA
 * (short source), OROYA_ERR_UNSUPPORTED (a URI scheme), OROYA_ERR_LIMIT,
 * OROYA_ERR_OUT_OF_MEMORY. Messages name the buffer and the URI. */
oroya_result oroya_gltf_load_buffers(oroya_gltf_data *data, oroya_error *err);

/* Checks everything that later use relies on (see the top of this header). Buffers must
 * have been loaded. Reads animation input accessors to check the times and sparse indices.
 * Allocates 8 bytes per node of scratch (freed before it returns); the decoders below refuse
 * data that has not passed this call.
 * Errors: OROYA_ERR_OUT_OF_RANGE (an index or byte range), OROYA_ERR_INVALID_DATA
 * (component type, counts, node with two parents), OROYA_ERR_CYCLE (node graph),
 * OROYA_ERR_BAD_TIMES, OROYA_ERR_VALUE_COUNT (sampler output count), OROYA_ERR_LIMIT,
 * OROYA_ERR_UNSUPPORTED (required extension), OROYA_ERR_NOT_FOUND (buffers not loaded),
 * OROYA_ERR_OUT_OF_MEMORY. */
oroya_result oroya_gltf_validate(const oroya_gltf_data *data, oroya_error *err);

/* Frees everything the data owns. NULL is fine. */
void oroya_gltf_free(oroya_gltf_data *data);

/* Components per element of a type (SCALAR 1 ... MAT4 16); 0 for NONE. */
uint32_t oroya_gltf_type_components(oroya_gltf_type type);

/* Number of floats oroya_gltf_accessor_unpack_floats writes: count x components. 0 for a
 * bad index. */
size_t oroya_gltf_accessor_float_count(const oroya_gltf_data *data, uint32_t accessor);

/* Decodes accessor `accessor` of validated data into out[0 .. count*components): any
 * component type, byteStride, matrix column padding, sparse substitution. Normalized
 * integers are scaled as three.js's GLTFLoader scales animation outputs: the value times
 * 1/127, 1/255, 1/32767 or 1/65535, computed in double and rounded to float (so -128 as a
 * normalized byte gives -1.00787..., not -1). Other integers convert exactly.
 * Errors: OROYA_ERR_INVALID_ARGUMENT (NULL, bad index, data not validated),
 * OROYA_ERR_OUT_OF_RANGE (out_count smaller than needed). Never allocates. */
oroya_result oroya_gltf_accessor_unpack_floats(const oroya_gltf_data *data, uint32_t accessor,
                                               float *out, size_t out_count, oroya_error *err);

/* The same for integer accessors (indices, joints): values as unsigned integers, no
 * normalization. Errors as above, plus OROYA_ERR_INVALID_DATA for a FLOAT or signed
 * accessor. Never allocates. */
oroya_result oroya_gltf_accessor_unpack_uints(const oroya_gltf_data *data, uint32_t accessor,
                                              uint32_t *out, size_t out_count, oroya_error *err);

/* ==== Import: glTF data -> oroya objects ====================================================
 *
 * oroya_gltf_import turns validated data into a scene, clips, skins, geometries, materials
 * and decoded base color images, all owned by one oroya_gltf_model and freed by
 * oroya_gltf_model_free. oroya_gltf_load does parse_file + validate + import in one call.
 *
 * What is loaded: the default scene (`scene`, else scene 0; a file without scenes loads every
 * root node), as three.js's GLTFLoader builds gltf.scene: nodes in depth-first order with
 * children in file order; TRS, or a matrix decomposed as three's Matrix4.decompose does;
 * joints of a skin become OROYA_NODE_BONE, nodes with a skinned mesh OROYA_NODE_SKINNED_MESH,
 * with a mesh OROYA_NODE_MESH. A mesh with one triangle primitive is attached to its node; a
 * mesh with several gets one unnamed child node per primitive (three's Group of meshes), in
 * primitive order. Morph weights sit on the glTF node: its `weights`, else the mesh's, else 0.
 * Primitives that are not triangle lists (points, lines, strips, fans) get no geometry (their
 * POSITION and indices are kept in model->primitives, for export).
 * The geometry gets POSITION, NORMAL, TEXCOORD_0, JOINTS_0/WEIGHTS_0; TEXCOORD_1, TANGENT and
 * COLOR_0 are kept in model->primitives for export only.
 *
 * Names follow docs/scenario.md ("glTF scenarios") so results compare with three.js: scene
 * node of glTF node i is named by its glTF name when that is non-empty, unique among the
 * file's nodes, not "node_<digits>" and not starting with "action:" or "skin:"; otherwise
 * "node_<i>". Clip of
 * animation i is named by its glTF name when non-empty, unique among the animations and not
 * "animation_<digits>" of another index; otherwise "animation_<i>". oroya_gltf_model_find_node
 * and _find_clip accept both forms. Track targets use the scene names.
 *
 * Skins, as GLTFLoader: one oroya_skeleton per glTF skin (bones in `joints` order, inverses
 * from inverseBindMatrices, identity when absent); one oroya_skin per skinned primitive,
 * with JOINTS_1/WEIGHTS_1 as the second set of four influences, weights normalized
 * (three's normalizeSkinWeights), bound with the identity bind matrix in attached mode, and
 * stored in the scene's skin slot of the primitive's node. A skin whose joints are not all
 * in the loaded scene gets no skeleton (skeletons[j] NULL) and its meshes stay unskinned.
 *
 * Animation data are what GLTFLoader builds: times and values as stored, normalized integer
 * outputs scaled (see oroya_gltf_accessor_unpack_floats), STEP/LINEAR/CUBICSPLINE kept. One
 * track per channel (weights channels: one track on the glTF node). Clip durations are the
 * last key time of the longest track.
 */

typedef struct oroya_gltf_image_data {
    uint32_t width, height; /* 0 when not decoded (skip_images, or unused) */
    uint8_t *pixels;        /* width * height * 4 bytes, RGBA8, top row first */
    const char *name;       /* glTF name, "" when absent */
    const char *mime_type;  /* the file's mimeType, else "image/png" or "image/jpeg"
                                         from the bytes, else "" */
    const uint8_t *encoded; /* the image file's bytes as the file holds them (every
                                         image, used or not), for export; NULL with
                                         skip_images */
    uint64_t encoded_size;
} oroya_gltf_image_data;

/* A glTF texture: its image and its sampler, as the file has them. */
typedef struct oroya_gltf_model_texture {
    const char *name;                /* glTF name, "" when absent */
    uint32_t image;                  /* index into images, or OROYA_GLTF_NONE */
    bool sampler;                    /* the texture names a sampler; else the fields below
                                         are glTF's defaults (filters 0 = unset, REPEAT) */
    const char *sampler_name;        /* "" when absent */
    uint32_t mag_filter, min_filter; /* as oroya_gltf_texture_sampler */
    uint32_t wrap_s, wrap_t;
} oroya_gltf_model_texture;

typedef struct oroya_gltf_model_material {
    const char *name;             /* glTF name, "" when absent */
    oroya_material material;      /* base color factor, metallic, roughness, sides */
    uint32_t base_color_image;    /* index into images, or OROYA_GLTF_NONE */
    uint32_t base_color_texcoord; /* TEXCOORD set; only 0 has uvs in the geometry */
    uint32_t base_color_texture;  /* index into textures, or OROYA_GLTF_NONE */
} oroya_gltf_model_material;

typedef struct oroya_gltf_model_skin {
    const char *name; /* glTF name, "" when absent */
    uint32_t joint_count;
    oroya_node *joints;                /* joint nodes in `joints` order ({0}: not in the scene) */
    uint32_t *joint_gltf_nodes;        /* the same joints as glTF node indices */
    oroya_mat4 *inverse_bind_matrices; /* one per joint; identity when the file has none */
    /* {0} when absent, not in the scene, or not a common root of the joints (an ancestor of
     * each, or one of them: glTF's rule; such a skeleton is dropped and listed in unkept) */
    oroya_node skeleton;
    uint32_t skeleton_gltf_node; /* the same as a glTF node index, or OROYA_GLTF_NONE */
} oroya_gltf_model_skin;

/* A glTF camera as the file holds it; the scene's oroya_camera is what import built from it
 * (GLTFLoader's defaults: aspect 1 when unset, zfar 2e6 when infinite, znear 1 when 0). */
typedef struct oroya_gltf_model_camera {
    const char *name; /* glTF name, "" when absent */
    bool orthographic;
    float yfov, aspect_ratio; /* perspective, radians; aspect_ratio 0 = unset */
    float xmag, ymag;         /* orthographic */
    float znear, zfar;        /* zfar 0 = unset (infinite; perspective only) */
    oroya_camera camera;      /* what import attached to the nodes using it */
} oroya_gltf_model_camera;

/* What import keeps of a primitive beyond its geometry, for export to write it back: for one
 * it made no geometry for (points, lines, line loops and strips, triangle strips and fans),
 * its mode, POSITION and indices; for a skinned triangle primitive, its second set of
 * influences as the file had them (the skin's copy is normalized). Zero when absent. */
typedef struct oroya_gltf_model_primitive {
    uint32_t mode; /* glTF mode: 0 points, 1 lines, 2 loop, 3 strip, 5, 6 */
    uint32_t vertex_count;
    float *positions; /* vertex_count * 3, NULL when not kept */
    uint32_t index_count;
    uint32_t *indices; /* NULL when the primitive has none */
    uint16_t *joints2; /* JOINTS_1, vertex_count * 4, or NULL */
    float *weights2;   /* WEIGHTS_1, vertex_count * 4, or NULL */
    /* Of a triangle primitive, attributes the geometry has no place for, decoded as
     * oroya_gltf_accessor_unpack_floats does (normalized integers scaled), for export: */
    float *texcoords1;         /* TEXCOORD_1, geometry vertex count * 2, or NULL */
    float *tangents;           /* TANGENT, vertex count * 4 (xyz, w = handedness) */
    float *colors;             /* COLOR_0, vertex count * color_components, or NULL */
    uint32_t color_components; /* 3 (VEC3) or 4 (VEC4) */
    oroya_gltf_component_type color_component_type; /* FLOAT, or normalized UNSIGNED_BYTE
                                         or UNSIGNED_SHORT: export writes it back so */
} oroya_gltf_model_primitive;

/* A node's own morph weights as the file gives them (model->outside_weights). */
typedef struct oroya_gltf_model_node_weights {
    uint32_t node;  /* glTF node index */
    uint32_t count; /* its `weights` count (> 0) */
    const float *weights;
} oroya_gltf_model_node_weights;

/* A glTF scene as the file lists it (import loads one of them into model->scene). */
typedef struct oroya_gltf_model_scene {
    const char *name;      /* glTF name, "" when absent */
    uint32_t node_count;   /* its root nodes */
    const uint32_t *nodes; /* glTF node indices, in file order */
} oroya_gltf_model_scene;

typedef struct oroya_gltf_model {
    oroya_scene *scene;           /* owned; destroyed by oroya_gltf_model_free */
    uint32_t node_count;          /* = glTF node count */
    oroya_node *nodes;            /* per glTF node; {0} when not in the loaded scene */
    const char **node_names;      /* per glTF node: its scene name (docs/scenario.md rule) */
    const char **node_file_names; /* per glTF node: its name in the file, "" when absent */
    /* Per glTF node, whatever scene holds it (or none): its camera (index into cameras),
     * mesh and skin as the file gives them, OROYA_GLTF_NONE when absent. A node outside the
     * loaded scene has no scene node, so nothing is built for it, but export writes these
     * back (with the geometries, materials and skins import made from the file). */
    uint32_t *node_cameras;
    uint32_t *node_meshes;
    oroya_transform *node_transforms; /* per glTF node: its TRS as imported (a matrix
                                         decomposed), also for nodes not in the scene */
    uint32_t clip_count;              /* = glTF animation count */
    oroya_clip **clips;               /* per glTF animation, in file order */
    uint32_t skin_count;
    oroya_gltf_model_skin *skins;
    oroya_skeleton **skeletons; /* per glTF skin; NULL when a joint is not in the scene */
    uint32_t skinned_mesh_count;
    oroya_skin **skinned_meshes;   /* one per skinned primitive, bound to its skeleton */
    uint32_t mesh_count;           /* = glTF mesh count */
    uint32_t *mesh_first_geometry; /* per mesh: index of its primitive 0 in geometries */
    const char **mesh_names;       /* per mesh: glTF name, "" when absent */
    uint32_t geometry_count;       /* one per primitive of every mesh, in mesh order */
    oroya_geometry **geometries;   /* NULL for primitives that are not triangle lists */
    uint32_t *geometry_material;   /* per geometry: index into materials or OROYA_GLTF_NONE */
    oroya_gltf_model_primitive *primitives; /* per geometry slot: what import keeps beyond
                                         the geometry (see oroya_gltf_model_primitive) */
    uint32_t material_count;
    oroya_gltf_model_material *materials;
    uint32_t image_count;
    oroya_gltf_image_data *images;
    uint32_t camera_count; /* = glTF camera count */
    oroya_gltf_model_camera *cameras;
    uint32_t texture_count; /* = glTF texture count */
    oroya_gltf_model_texture *textures;
    const char *scene_name; /* the loaded glTF scene's name, "" when absent */
    uint32_t scene_count;   /* = glTF scene count; export writes every one back */
    oroya_gltf_model_scene *scenes;
    uint32_t scene_index;           /* the scene loaded into `scene`; OROYA_GLTF_NONE for a file
                                         without scenes (every root node was loaded) */
    uint32_t *node_child_counts;    /* per glTF node: its children in the file */
    const uint32_t **node_children; /* per glTF node: their glTF indices, in file order
                                         (also for nodes outside the loaded scene) */
    uint32_t *node_skins;           /* per glTF node: its skin or OROYA_GLTF_NONE (see above) */
    /* The own `weights` of the nodes outside the loaded scene that have them (a node of the
     * scene has its weights in the scene), by increasing glTF node index. */
    uint32_t outside_weight_count;
    const oroya_gltf_model_node_weights *outside_weights;
    /* Animation channels import ignored: a `target.path` oroya does not animate (an
     * extension's, e.g. KHR_animation_pointer's "pointer"), or no `target.node` (glTF 3.11).
     * Their keys do not count toward the clip's duration (a clip of only such channels lasts
     * 0 s). The first one is animations[first_ignored_animation].channels[first_ignored_
     * channel]; first_ignored_unknown_path tells why (true: its path, else no node). Tools
     * should warn: the CLI prints "warning: animations[i].channels[j].target.path: ...". */
    uint32_t ignored_channel_count;
    uint32_t first_ignored_animation, first_ignored_channel;
    bool first_ignored_unknown_path;
    /* Per glTF animation (clip_count of them): its name in the file, "" when absent. The
     * clip's own name follows docs/scenario.md's rule (animation_<i> for a missing or repeated
     * name); export writes this one back for the model's clips. */
    const char **clip_file_names;
    /* The file's asset.copyright (a sample model's licence and attribution, for instance),
     * NULL when absent; export writes it back. */
    const char *copyright;
    /* Animations whose extras import partly ignored (docs/gltf.md, "Markers"): an entry of
     * extras.markers or extras.curves in another shape than oroya's, a curve with bad keys or
     * a marker outside its clip is dropped, the others kept (extras are free for any tool to
     * fill, so they never refuse a file); a value that is not an array drops its list.
     * first_ignored_extras says why for the first, naming its place
     * ("animations[0].extras.markers[1]: expected {...}"), NULL when none. Tools should warn,
     * as the CLI does. */
    uint32_t ignored_extras_count;
    const char *first_ignored_extras;
    /* The data's unkept lines (oroya_gltf_data.unkept: what the file holds that the model
     * lacks, so export does not write it), then one for the nodes whose matrix is not a
     * translation, rotation and scale (a shear: import decomposes it as three.js does, which
     * does not give the matrix back) naming the first ("nodes[3].matrix: ..."), and one for
     * the skins whose skeleton is no common root of their joints (dropped). `oroya export`
     * prints them as notes, `oroya info` lists them. */
    uint32_t unkept_count;
    const char *const *unkept;
    /* + private bookkeeping */
} oroya_gltf_model;

typedef struct oroya_gltf_import_desc {
    oroya_allocator allocator;    /* zero = malloc/free; used for everything the model owns */
    bool skip_images;             /* true: read and decode no image (images stay 0 x 0,
                                         encoded NULL; export then writes none) */
    bool allow_outside_base_dir;  /* oroya_gltf_load only: as in oroya_gltf_desc */
    oroya_gltf_read_fn read_file; /* oroya_gltf_load only: as in oroya_gltf_desc (import
                                         reads image URIs with the data's reader) */
    void *read_user;
    bool skip_image_decode; /* true: keep every image's file bytes (encoded, so export writes
                                 it back) but decode none (width and height 0, pixels NULL):
                                 what a converter needs; skip_images wins */
} oroya_gltf_import_desc;

/* Builds a model from validated data (oroya_gltf_validate passed). `data` is only read; it
 * may be freed right after. desc may be NULL. On success *out owns everything; free it with
 * oroya_gltf_model_free. Errors (the message names the glTF path): INVALID_ARGUMENT (NULL,
 * data not validated), OUT_OF_MEMORY, OUT_OF_RANGE (a vertex index past the vertex count),
 * NON_FINITE (a NaN key value or vertex position), any oroya_clip_create or
 * oroya_geometry_create error, OROYA_ERR_PARSE / NOT_FOUND (an image that cannot be read or
 * decoded), LIMIT (everything decoded, images included, must fit in
 * OROYA_GLTF_MAX_UNBACKED_BYTES plus 32 bytes per byte of buffer and image data, per-node
 * morph weights, per-node skin copies and per-primitive child nodes included: a small file
 * cannot make import allocate gigabytes). On error *out is NULL and nothing leaks. */
oroya_result oroya_gltf_import(const oroya_gltf_data *data, const oroya_gltf_import_desc *desc,
                               oroya_gltf_model **out, oroya_error *err);

/* parse_file + validate + import in one call. */
oroya_result oroya_gltf_load(const char *path, const oroya_gltf_import_desc *desc,
                             oroya_gltf_model **out, oroya_error *err);

/* Frees the scene, clips, geometries, images and arrays. NULL is fine. */
void oroya_gltf_model_free(oroya_gltf_model *model);

/* A node by the names of docs/scenario.md: "node_<i>" (decimal, no leading zeros) for any
 * glTF node, or the glTF name when it qualifies. Errors: INVALID_ARGUMENT (NULL), NOT_FOUND
 * (no such node, or the node is not in the loaded scene). *gltf_index (may be NULL) gets the glTF
 * node index. O(log n) in the node count (a sorted index built at import). */
oroya_result oroya_gltf_model_find_node(const oroya_gltf_model *model, const char *name,
                                        oroya_node *out, uint32_t *gltf_index);

/* A clip by "animation_<i>" or its qualifying glTF name; NULL when there is none. */
oroya_clip *oroya_gltf_model_find_clip(const oroya_gltf_model *model, const char *name);

/* three.js skeleton.boneMatrices for skin `skin` from the scene's current world matrices
 * (call oroya_scene_update_world first): per joint jointWorld * inverseBindMatrix formed in
 * double and rounded to float, as three does, 16 floats each, column-major, in `joints`
 * order (docs/scenario.md "skin:<j>.boneMatrices"). A joint not in the scene uses the identity
 * world matrix. Unlike oroya_skeleton_update it needs no skeleton and writes to caller memory:
 * out holds joint_count * 16 floats. Never allocates. Errors: INVALID_ARGUMENT (NULL, skin
 * out of range); NON_FINITE when a product left the float range (a joint scale of 1e20 times
 * an inverse bind scale of 1e30: the world matrices are finite, their product is not): every
 * matrix is still written, and the caller finds the joint with isfinite. */
oroya_result oroya_gltf_model_bone_matrices(const oroya_gltf_model *model, uint32_t skin,
                                            float *out);

/* ==== Export =================================================================================
 *
 * oroya_gltf_write writes a scene as glTF 2.0: every node in dense order (so glTF node i is
 * dense index i) with its name and TRS; meshes (one triangle primitive per distinct geometry,
 * material and skin: POSITION with min/max, NORMAL, TEXCOORD_0, JOINTS_0/WEIGHTS_0 as the
 * geometry holds them (a file's weights, not the skin's normalized copy) unless the node's
 * oroya_skin uses other joints (then the skin's), JOINTS_1/WEIGHTS_1 from the skin (with
 * desc.model, the file's from model->primitives when the joints match), indices, morph
 * targets);
 * materials (base color factor, metallic, roughness, double-sided); skins (one per skeleton:
 * joints, inverseBindMatrices); cameras; node morph weights; and the given clips (one sampler
 * and channel per track; tracks target nodes by scene name; a clip without tracks is left
 * out, as glTF has no empty animation). Keys and vertex data are written bit for bit, so
 * importing the file gives the same floats back; with desc.model, what the scene does not
 * hold comes from the model (see oroya_gltf_write_desc and docs/gltf.md). The .bin URI is
 * percent-encoded (RFC 3986). Images, textures and samplers only with desc.model (images as
 * buffer views, bit for bit, in .gltf too). Not written: lights, visibility, colour
 * overrides; SMOOTH and STERP
 * tracks (no glTF form: OROYA_ERR_UNSUPPORTED). The output passes the Khronos glTF
 * validator with no errors. Linear in the scene and clip sizes (plus a sort of the names).
 */
typedef struct oroya_gltf_write_desc {
    bool binary;                    /* true: one .glb; false: .gltf plus a .bin beside it
                                         (FILE.gltf -> FILE.bin, its URI percent-encoded) */
    const oroya_clip *const *clips; /* clip_count clips to write as animations, or NULL */
    uint32_t clip_count;
    oroya_allocator allocator; /* zero = malloc/free (the JSON tree uses malloc) */
    /* The model `scene` was imported as (model->scene == scene), or NULL. With it, what the
     * scene does not hold comes back as the file had it: node names (duplicates and unnamed
     * nodes too), mesh, material, skin and camera names, skin.skeleton, unused materials and
     * skins, a camera's unset aspect ratio and infinite zfar, primitives without a material,
     * points/lines/strip primitives (model->primitives), every scene of model->scenes with
     * the nodes only other scenes hold, and the nodes no scene holds (written with their
     * name, transform and subtree, and their mesh, camera, skin and own morph weights from
     * the model), every skin (one with a joint outside the loaded scene from model->skins).
     * What was changed in the scene since import is written as the scene has it. */
    const oroya_gltf_model *model;
    bool snorm16_rotations; /* rotation outputs of LINEAR and STEP tracks as
                                         normalized signed shorts (glTF 2.0 allows them for
                                         animation outputs): each value becomes
                                         round(v * 32767) / 32767, so keys already on that
                                         grid (oroya_pose_clip_reduce) come back exactly */
    const char *copyright;  /* asset.copyright to write; NULL: model->copyright when a model
                                         is given, else none. "" writes none. */
} oroya_gltf_write_desc;

/* Writes `scene` (and desc's clips) to `path`. desc may be NULL (.gltf + .bin, no clips).
 * Errors: INVALID_ARGUMENT (NULL scene or path, clips NULL with a count, desc.model of another
 * scene, a name, marker or copyright that is not UTF-8 and a material factor outside [0, 1]:
 * named by its glTF path, nothing written), NON_FINITE (a value JSON cannot hold, such as a
 * NaN in a borrowed material: named likewise), NOT_FOUND (a track whose target is not a node of the scene, nor with desc.model a
 * node of the model outside the scene), UNSUPPORTED (a SMOOTH or STERP track),
 * UNKNOWN_PROPERTY, STALE_HANDLE (a skin bone not in the scene), IO, LIMIT, OUT_OF_MEMORY.
 * Files are replaced whole: each is written to a new file in its target's folder and renamed
 * over the target once both are complete (a .gltf's .bin first), so on error the targets are
 * as they were and no partial file remains (the folder must let a file be created there). A
 * target that exists keeps its permission bits; one that is a symbolic link has the file it
 * names replaced (the .bin goes beside the path as given, where a loader looks for it); hard
 * links to a target are not kept. PNG and JPEG images only (others are left out with their
 * textures). */
oroya_result oroya_gltf_write(const oroya_scene *scene, const oroya_gltf_write_desc *desc,
                              const char *path, oroya_error *err);

/* ---- the rig of a loaded model (src/io/gltf_rig.c; the rig itself is in oroya/rig.h) ---- */

/* The rig of skin `skin` of a loaded model (its joints and inverse bind matrices), with every
 * clip of the model; skin OROYA_GLTF_NONE: every node of the model's scene (a file without
 * skins). allocator may be NULL. Errors as oroya_rig_create, and OUT_OF_RANGE for a skin
 * index past model->skin_count, STALE_HANDLE for a joint that is not in the loaded scene. */
oroya_result oroya_rig_create_gltf(const oroya_gltf_model *model, uint32_t skin,
                                   const oroya_allocator *allocator, oroya_rig **out,
                                   oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_GLTF_H */
