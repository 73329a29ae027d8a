#!/usr/bin/env python3
"""Extracts the C code blocks (```c) of README.md and docs/*.md and compiles each one against
the public headers, so a snippet that drifts from the API fails the build.

A block is compiled as the body of a function `int example(GIVEN)`, after the includes every
snippet may assume (stdio, stdlib, string, math, oroya/oroya.h, oroya/render.h). A line that
starts with '...' stands for code the snippet leaves out and becomes a comment. What a snippet
takes from the surrounding program is said in an HTML comment (invisible on the rendered page)
on the line right before the fence:

  <!-- example given: oroya_scene *scene; double dt -->
      the values the snippet uses, as the function's parameters
  <!-- example given: ...; prelude: C DECLARATIONS -->
      also declarations put at file scope before the function (the application's own types)
  <!-- example file-scope; prelude: C DECLARATIONS -->
      the snippet is file-scope code (function definitions, declarations), not a body
  <!-- example program -->
      the snippet is a whole program (it has main); it is compiled as it is

A block with `int main(` is a program without a comment. Every ```c block is compiled: one
that cannot be is an error, so a new snippet cannot escape the check.

  doc_examples.py SOURCE_DIR CC [CFLAGS...]     exit 0 when every block compiles
"""
import os
import re
import subprocess
import sys
import tempfile

MARK = re.compile(r'^<!--\s*example\b(?P<body>.*?)-->\s*$')
INCLUDES = ('#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n'
            '#include <string.h>\n#include <oroya/oroya.h>\n#include <oroya/render.h>\n')


def blocks(path):
    """(line of the first code line, mark text or None, code lines) for each ```c block."""
    lines = open(path).read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != '```c':
            i += 1
            continue
        mark = None
        if i > 0:
            m = MARK.match(lines[i - 1].strip())
            if m:
                mark = m.group('body').strip()
        j = i + 1
        while j < len(lines) and not lines[j].startswith('```'):
            j += 1
        out.append((i + 2, mark, lines[i + 1:j]))
        i = j + 1
    return out


def parse_mark(mark):
    """The mode ('body', 'file' or 'program'), the given parameters and the prelude."""
    mode, given, prelude = 'body', '', ''
    if mark is None:
        return mode, given, prelude
    for part in re.split(r';\s*(?=(?:given|prelude|file-scope|program)\b)', mark):
        part = part.strip().rstrip(';').strip()
        if part == 'file-scope':
            mode = 'file'
        elif part == 'program':
            mode = 'program'
        elif part.startswith('given:'):
            given = ', '.join(p.strip() for p in part[len('given:'):].split(';') if p.strip())
        elif part.startswith('prelude:'):
            prelude = part[len('prelude:'):].strip() + ';'
        elif part:
            raise ValueError('unknown part of an example comment: %r' % part)
    return mode, given, prelude


def as_c(code):
    out = []
    for text in code:
        stripped = text.strip()
        if stripped.startswith('...'):
            out.append('/* %s */' % stripped.replace('*/', '* /'))
        else:
            out.append(text)
    return '\n'.join(out)


def main():
    src_dir, cc, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    include = os.path.join(src_dir, 'include')
    docs = os.path.join(src_dir, 'docs')
    paths = [os.path.join(src_dir, 'README.md')]
    paths += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    failures, total = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            for k, (line, mark, code) in enumerate(blocks(path)):
                total += 1
                try:
                    mode, given, prelude = parse_mark(mark)
                except ValueError as e:
                    print('%s:%d: %s' % (path, line - 2, e))
                    failures += 1
                    continue
                body = as_c(code)
                if mark is None and re.search(r'\bint\s+main\s*\(', body):
                    mode = 'program'
                name = '%s_%d' % (os.path.basename(path)[:-3], k)
                c = os.path.join(tmp, name + '.c')
                with open(c, 'w') as f:
                    if mode == 'program':
                        f.write('#line %d "%s"\n%s\n' % (line, path, body))
                    else:
                        f.write(INCLUDES + prelude + '\n')
                        if mode == 'file':
                            f.write('#line %d "%s"\n%s\n' % (line, path, body))
                        else:
                            params = given or 'void'
                            f.write('int %s(%s);\nint %s(%s) {\n' % (name, params, name, params))
                            f.write('#line %d "%s"\n%s\nreturn 0;\n}\n' % (line, path, body))
                r = subprocess.run([cc, '-std=c11', '-fsyntax-only', '-I', include] + flags + [c],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    failures += 1
                    print('%s:%d: the C block does not compile:\n%s' % (path, line - 1, r.stderr))
    print('%d C blocks in %d files, %d problems' % (total, len(paths), failures))
    if total == 0:
        print('no C blocks found: the extraction is broken')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
