#!/usr/bin/env python3
"""embed.py OUT.c FILE...: the pages' files (HTML, CSS, JavaScript) as a table of C arrays, for
web-pages.c: each file is served at /static/NAME (and the HTML ones by their routes), with the
Content-Type its extension names. Run by the build (server/meson.build); nothing is made at run
time."""
import os
import sys

TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8"}


def main():
    out, files = sys.argv[1], sys.argv[2:]
    lines = ["/* Made by server/web/pages/embed.py from server/web/pages/: do not edit. */",
             '#include "web-pages.h"', ""]
    entries = []
    for i, path in enumerate(sorted(files, key=os.path.basename)):
        name = os.path.basename(path)
        data = open(path, "rb").read()
        lines.append("static const unsigned char asset_%d[] = {" % i)
        for k in range(0, len(data), 16):
            lines.append("\t" + ", ".join(str(b) for b in data[k:k + 16]) + ",")
        lines.append("};")
        entries.append('\t{"%s", "%s", asset_%d, %d},' %
                       (name, TYPES[os.path.splitext(name)[1]], i, len(data)))
    lines.append("")
    lines.append("const struct web_asset web_assets[] = {")
    lines += entries
    lines.append("};")
    lines.append("const unsigned web_nassets = %d;" % len(entries))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


main()
