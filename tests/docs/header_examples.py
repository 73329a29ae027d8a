#!/usr/bin/env python3
"""Extracts the code examples from oroya's public headers and compiles each one, so an example
that drifts from the API fails the build.

An example is a block of comment lines indented three spaces past the ' * ' of a comment,
right after a line that ends in 'Example:' or 'Example (given: DECLARATIONS):'. The
declarations become the parameters of the function the example is compiled in (the values the
example takes from the surrounding program). Blank comment lines may sit inside a block. A line
that starts with '...' stands for code the example leaves out and becomes a comment.

Every other indented comment line that looks like a call statement (oroya_x(...);) must be
inside such a block: an unmarked example is an error too, so new examples cannot escape the
check.

  header_examples.py INCLUDE_DIR CC [CFLAGS...]     exit 0 when every example compiles
"""
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r'Example(?: \(given: (?P<given>[^)]*)\))?:\s*$')
CODE = re.compile(r'^ \*   (?P<code>.*)$')
BLANK = re.compile(r'^ \*\s*$')
CALL = re.compile(r'\boroya_\w+\(.*\)\s*;')


def examples(path):
    """(line, given, code lines) for each marked example; (line, text) for unmarked calls."""
    lines = open(path).read().split('\n')
    found, claimed, stray = [], set(), []
    i = 0
    while i < len(lines):
        m = MARKER.search(lines[i]) if lines[i].startswith(' *') or lines[i].startswith('/*') else None
        if not m:
            i += 1
            continue
        start, code, j = i + 1, [], i + 1
        while j < len(lines):
            c = CODE.match(lines[j])
            if c:
                text = c.group('code')
                code.append(text)
                claimed.add(j)
                j += 1
            elif BLANK.match(lines[j]) and j + 1 < len(lines) and CODE.match(lines[j + 1]) and code:
                j += 1
            else:
                break
        found.append((start + 1, m.group('given') or '', code))
        i = j
    for n, line in enumerate(lines):
        c = CODE.match(line)
        if c and n not in claimed and CALL.search(c.group('code')):
            stray.append((n + 1, c.group('code').strip()))
    return found, stray


def as_c(code):
    out = []
    for text in code:
        body = text.rstrip()
        if body.endswith('*/'):
            body = body[:-2].rstrip()
        stripped = body.strip()
        if stripped.startswith('...'):
            out.append('    /* %s */' % stripped.replace('*/', '* /'))
        else:
            out.append('    ' + body)
    return '\n'.join(out)


def main():
    include, cc, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    headers = sorted(h for h in os.listdir(os.path.join(include, 'oroya')) if h.endswith('.h'))
    failures, total = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            path = os.path.join(include, 'oroya', h)
            found, stray = examples(path)
            for line, text in stray:
                print('%s:%d: looks like example code but is not in a marked example '
                      '("Example:" line before it): %s' % (path, line, text))
                failures += 1
            for k, (line, given, code) in enumerate(found):
                total += 1
                src = os.path.join(tmp, '%s_%d.c' % (h[:-2], k))
                with open(src, 'w') as f:
                    f.write('#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n')
                    f.write('#include <oroya/oroya.h>\n#include <oroya/%s>\n' % h)
                    f.write('#line %d "%s"\n' % (line, path))
                    f.write('void example_%d(%s);\n' % (k, given or 'void'))
                    f.write('void example_%d(%s) {\n%s\n}\n' % (k, given or 'void', as_c(code)))
                r = subprocess.run([cc, '-std=c11', '-fsyntax-only', '-I', include] + flags + [src],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    failures += 1
                    print('%s:%d: the example does not compile:\n%s' % (path, line, r.stderr))
    print('%d examples in %d headers, %d problems' % (total, len(headers), failures))
    if total == 0:
        print('no examples found: the extraction is broken')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
