#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""svgcheck.py - what the SVG tests need: an SVG rendered to pixels by a real
browser (Debian's headless chromium), checked as XML by xmllint, and colour
probes on the picture (python3-pil).

As a module:
    import svgcheck
    img = svgcheck.render("a.svg", "a.png", 800, 600)   # a PIL RGB image, W x H
    ok, msg = svgcheck.xml_ok("a.svg")
    svgcheck.color_near(img, x, y, "#3b6fd4")          # True/False, tol 24 per channel
    svgcheck.count_near(img, "#3b6fd4")                # pixels of that colour
    svgcheck.not_blank(img)                            # more than the background
    svgcheck.require()                                 # exits 77 (skip) or 1 (CI) if a tool is missing
    svgcheck.color_at(img, x, y)                       # "#rrggbb", for failure messages

As a command:
    python3 svgcheck.py render IN.svg OUT.png W H      # exit 0; 1 on failure or a blank picture
    python3 svgcheck.py xml IN.svg                     # exit 0 well-formed, 1 not

Outside CI (CI unset, empty, "0" or "false") a missing chromium, xmllint or PIL
(the xml command: xmllint only) is a skip: exit 77 with the reason on stderr.
With CI set it is a failure (exit 1).
The command form re-runs itself under Debian's /usr/bin/python3 when the
python3 on PATH (a pyenv one, say) has no PIL, since python3-pil is Debian's.

Why the window is never smaller than MIN_WINDOW: this chromium's headless
mode (the "new" one, the only one left in recent versions) gives a window
shorter than about 150 pixels a viewport of a few rows only, silently; the
page is rendered into a window of at least MIN_WINDOW x MIN_WINDOW and the
screenshot cropped to W x H (the SVG sits at the top left, unscaled, as long
as the document sets width and height).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

CHROMIUM = os.environ.get("PMAPS_CHROMIUM", "/usr/bin/chromium")
XMLLINT = os.environ.get("PMAPS_XMLLINT", "xmllint")
MIN_WINDOW = 400
TIMEOUT = 120  # seconds for one render; a 60k-mapping picture takes a few


class SvgCheckError(Exception):
    """A tool failed (chromium crashed, timed out, wrote no PNG, ...)."""


def in_ci():
    v = os.environ.get("CI", "")
    return v not in ("", "false", "0")


def missing(tools=("chromium", "xmllint", "pil")):
    """The reason the checks (of TOOLS only, if given) cannot run here, or None."""
    if "chromium" in tools and not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return "chromium not found at %s (Debian's chromium package)" % CHROMIUM
    if "xmllint" in tools and shutil.which(XMLLINT) is None:
        return "xmllint not found (Debian's libxml2-utils package)"
    if "pil" in tools:
        try:
            import PIL.Image  # noqa: F401
        except ImportError:
            return "PIL not importable by %s (Debian's python3-pil package)" % sys.executable
    return None


def require(tools=("chromium", "xmllint", "pil")):
    """Exit 77 (skip) outside CI or 1 in CI when one of TOOLS is missing."""
    why = missing(tools)
    if why is None:
        return
    if in_ci():
        print("svgcheck: FAIL: %s (CI runs the SVG tests)" % why, file=sys.stderr)
        sys.exit(1)
    print("svgcheck: SKIP: %s" % why, file=sys.stderr)
    sys.exit(77)


def xml_ok(svg_path):
    """(True, "") when xmllint finds SVG_PATH well-formed, else (False, its message)."""
    try:
        r = subprocess.run([XMLLINT, "--noout", svg_path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except FileNotFoundError:
        return False, "xmllint not found"
    except subprocess.TimeoutExpired:
        return False, "xmllint timed out after %d s" % TIMEOUT
    msg = (r.stdout + r.stderr).decode("utf-8", "replace").strip()
    if r.returncode != 0:
        return False, msg or ("xmllint exit %d" % r.returncode)
    return True, msg


def render(svg_path, png_path, width, height, timeout=TIMEOUT):
    """Render SVG_PATH in headless chromium; write the WIDTH x HEIGHT top-left
    of the page to PNG_PATH and return it as a PIL RGB image."""
    from PIL import Image

    width, height = int(width), int(height)
    if width <= 0 or height <= 0:
        raise SvgCheckError("render: size %dx%d" % (width, height))
    src = os.path.abspath(svg_path)
    if not os.path.isfile(src):
        raise SvgCheckError("render: no such file: %s" % src)
    ww, wh = max(width, MIN_WINDOW), max(height, MIN_WINDOW)
    with tempfile.TemporaryDirectory(prefix="svgcheck.") as tmp:
        shot = os.path.join(tmp, "shot.png")
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--no-default-browser-check", "--disable-extensions",
               "--user-data-dir=" + os.path.join(tmp, "profile"),
               "--virtual-time-budget=5000", "--screenshot=" + shot,
               "--window-size=%d,%d" % (ww, wh), "file://" + src]
        # Its own session, so that a timeout ends chromium and every child it started.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, env=dict(os.environ, HOME=tmp))
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise SvgCheckError("chromium timed out after %d s rendering %s" % (timeout, src))
        if p.returncode != 0 or not os.path.isfile(shot):
            tail = [l for l in (out + err).decode("utf-8", "replace").splitlines()
                    if "dbus" not in l and "unexpected operator" not in l][-8:]
            raise SvgCheckError("chromium exit %d, no screenshot of %s:\n%s"
                                % (p.returncode, src, "\n".join(tail)))
        img = Image.open(shot).convert("RGB")
        if img.size != (ww, wh):
            raise SvgCheckError("chromium wrote %dx%d, asked %dx%d" % (img.size + (ww, wh)))
        img = img.crop((0, 0, width, height))
        img.load()
    img.save(png_path)
    return img


def _rgb(colour):
    c = colour.lstrip("#")
    if len(c) != 6:
        raise ValueError("colour %r is not #rrggbb" % colour)
    return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))


def _near(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def color_at(img, x, y):
    """The pixel at (X, Y) as #rrggbb."""
    return "#%02x%02x%02x" % img.getpixel((int(x), int(y)))[:3]


def color_near(img, x, y, colour, tol=24):
    """True when the pixel at (X, Y) is within TOL of COLOUR in every channel."""
    x, y = int(x), int(y)
    if not (0 <= x < img.size[0] and 0 <= y < img.size[1]):
        return False
    return _near(img.getpixel((x, y))[:3], _rgb(colour), tol)


def count_near(img, colour, tol=24):
    """How many pixels are within TOL of COLOUR."""
    want = _rgb(colour)
    return sum(n for n, px in img.getcolors(img.size[0] * img.size[1]) if _near(px[:3], want, tol))


def not_blank(img, background="#ffffff"):
    """More than one distinct colour, and not all of it the background."""
    colours = img.getcolors(img.size[0] * img.size[1])
    if len(colours) <= 1:
        return False
    bg = _rgb(background)
    return any(px[:3] != bg for _, px in colours)


def _main(argv):
    usage = ("usage: svgcheck.py render IN.svg OUT.png WIDTH HEIGHT\n"
             "       svgcheck.py xml IN.svg")
    if len(argv) < 2 or argv[1] not in ("render", "xml"):
        print(usage, file=sys.stderr)
        return 2
    if argv[1] == "xml":
        require(("xmllint",))
    elif missing(("pil",)) and os.path.exists("/usr/bin/python3") \
            and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and not os.environ.get("SVGCHECK_REEXEC"):
        os.environ["SVGCHECK_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + argv[1:])
    else:
        require()
    if argv[1] == "xml":
        if len(argv) != 3:
            print(usage, file=sys.stderr)
            return 2
        ok, msg = xml_ok(argv[2])
        if not ok:
            print("svgcheck: %s is not well-formed XML:\n%s" % (argv[2], msg), file=sys.stderr)
            return 1
        return 0
    if len(argv) != 6:
        print(usage, file=sys.stderr)
        return 2
    try:
        w, h = int(argv[4]), int(argv[5])
    except ValueError:
        print(usage, file=sys.stderr)
        return 2
    try:
        img = render(argv[2], argv[3], w, h)
    except SvgCheckError as e:
        print("svgcheck: %s" % e, file=sys.stderr)
        return 1
    if not not_blank(img):
        print("svgcheck: %s rendered blank (%dx%d)" % (argv[2], w, h), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
