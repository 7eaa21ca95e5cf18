#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""timeline_render.py - the timeline of pmaps watch --svg as a browser shows it.

`test_timeline fixture OUT.svg` writes a picture whose data is known and
prints where its colours must be (its layout's own coordinates, from
timeline_where()); this renders it in headless chromium (tests/cli/svgcheck.py)
and checks each pixel: "probe X Y #colour what" must be that colour, "absent X
Y #colour what" must not. Both sides are printed when one fails.

Usage: timeline_render.py TEST_TIMELINE SVGCHECK_PY
Exit 0 pass, 1 fail, 77 skipped (no chromium, xmllint or PIL, outside CI).
"""
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    test_bin, svgcheck_py = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.dirname(os.path.abspath(svgcheck_py)))
    import svgcheck
    why = svgcheck.missing()
    if why and "PIL" in why and os.path.exists("/usr/bin/python3") and \
            os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            not os.environ.get("TIMELINE_REEXEC"):
        os.environ["TIMELINE_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
    svgcheck.require()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="timeline_render.") as tmp:
        svg = os.path.join(tmp, "timeline.svg")
        png = os.path.join(tmp, "timeline.png")
        r = subprocess.run([test_bin, "fixture", svg], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        if r.returncode != 0:
            print("FAIL: %s fixture: exit %d: %s" % (test_bin, r.returncode,
                                                     r.stderr.decode("utf-8", "replace")))
            return 1
        lines = r.stdout.decode().splitlines()
        size = lines[0].split()
        if size[0] != "size":
            print("FAIL: the fixture's first line is %r, want 'size W H'" % lines[0])
            return 1
        w, h = int(size[1]), int(size[2])
        ok, msg = svgcheck.xml_ok(svg)
        if not ok:
            print("FAIL: xmllint: %s" % msg)
            return 1
        img = svgcheck.render(svg, png, w, h)
        if not svgcheck.not_blank(img):
            print("FAIL: the picture rendered blank (%dx%d)" % (w, h))
            return 1
        print("rendered %dx%d" % (w, h))
        for line in lines[1:]:
            kind, x, y, colour, what = line.split(" ", 4)
            x, y = float(x), float(y)
            seen = svgcheck.color_at(img, x, y)
            near = svgcheck.color_near(img, x, y, colour)
            if kind == "probe" and not near:
                failures += 1
                print("FAIL: %s: pixel (%.0f, %.0f) is %s, want %s" % (what, x, y, seen, colour))
            elif kind == "absent" and near:
                failures += 1
                print("FAIL: %s: pixel (%.0f, %.0f) is %s, want anything but %s"
                      % (what, x, y, seen, colour))
            else:
                print("ok: %s: (%.0f, %.0f) is %s (%s %s)" % (what, x, y, seen, kind, colour))
        if failures and os.environ.get("TIMELINE_KEEP"):
            keep = os.environ["TIMELINE_KEEP"]
            subprocess.run(["cp", svg, png, keep])
            print("kept the picture in %s" % keep)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
