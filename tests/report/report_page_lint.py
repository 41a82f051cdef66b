#!/usr/bin/env python3
"""Static checks of the --report page sources (tools/wfo/report/), before the build inlines
them: report.html (and the universe page, universe.html) is well formed (every element closed in order, void elements never closed,
ids unique, the title and data slots and the two @inline lines once each and where they
belong, nothing loaded from outside the file); report.css has balanced braces, closed
comments and strings, and defines every custom property (--name) that the style or the
script uses. The script's syntax is checked in a browser (report_js_syntax_test.sh).
Errors name file:line. Exit 0 when clean, 1 with the errors.

usage: report_page_lint.py REPORT_DIR
"""

import html.parser
import pathlib
import re
import sys

# Elements that never have an end tag (HTML living standard, "void elements").
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
CSS_MARKER = "/* @inline report.css */"
JS_MARKER = "// @inline report.js"
SLOTS = ("__WFO_REPORT_TITLE__", "__WFO_REPORT_DATA__")


class PageChecker(html.parser.HTMLParser):
    """Walks report.html keeping the stack of open elements."""

    def __init__(self, name):
        super().__init__(convert_charrefs=True)
        self.name = name
        self.errors = []
        self.stack = []  # (tag, line)
        self.ids = {}
        self.text_in = {}  # tag -> text seen directly inside it (style, script, title)
        self.seen = {}  # tag -> count
        self.doctype = False

    def error_at(self, message):
        self.errors.append(f"{self.name}:{self.getpos()[0]}: {message}")

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1
        for key, value in attrs:
            if key == "id":
                if value in self.ids:
                    self.error_at(f'id "{value}" already used on line {self.ids[value]}')
                self.ids[value] = self.getpos()[0]
            if key in ("src", "href", "srcset", "action") or (
                    key == "style" and value and "url(" in value):
                self.error_at(f"<{tag} {key}=...> loads a resource; the page must be self-contained")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID:
            self.error_at(f"<{tag}/> is not an HTML void element; close it with </{tag}>")
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.error_at(f"</{tag}>: {tag} is a void element and has no end tag")
            return
        if not self.stack:
            self.error_at(f"</{tag}> with no open element")
            return
        open_tag, line = self.stack[-1]
        if open_tag != tag:
            self.error_at(f"</{tag}> closes <{open_tag}> opened on line {line}")
            # Recover: drop up to the matching element if there is one.
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i][0] == tag:
                    del self.stack[i:]
                    break
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.stack:
            tag = self.stack[-1][0]
            self.text_in[tag] = self.text_in.get(tag, "") + data

    def finish(self):
        self.close()
        for tag, line in self.stack:
            self.errors.append(f"{self.name}:{line}: <{tag}> is never closed")
        if not self.doctype:
            self.errors.append(f"{self.name}:1: no <!DOCTYPE html>")
        for tag in ("html", "head", "title", "body", "style", "main"):
            if self.seen.get(tag, 0) != 1:
                self.errors.append(f"{self.name}: <{tag}> {self.seen.get(tag, 0)} times, want once")


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def check_html(path, js_marker=JS_MARKER):
    text = path.read_text(encoding="utf-8")
    checker = PageChecker(path.name)
    checker.feed(text)
    checker.finish()
    errors = checker.errors
    for needle in (CSS_MARKER, js_marker) + SLOTS:
        n = text.count(needle)
        if n != 1:
            errors.append(f"{path.name}: {needle} occurs {n} times, want once")
    # Each marker alone on its line inside its element; each slot where the writer fills it.
    if checker.text_in.get("style", "").strip() != CSS_MARKER:
        errors.append(f"{path.name}: <style> must hold only the line {CSS_MARKER}")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", text, re.S)
    if [body.strip() for _, body in scripts].count(js_marker) != 1:
        errors.append(f"{path.name}: no <script> holding only the line {js_marker}")
    if not re.search(r"<title>__WFO_REPORT_TITLE__</title>", text):
        errors.append(f"{path.name}: __WFO_REPORT_TITLE__ is not the whole <title>")
    if not re.search(r'<script id="report-data" type="application/json">__WFO_REPORT_DATA__</script>',
                     text):
        errors.append(f'{path.name}: __WFO_REPORT_DATA__ is not the whole <script id="report-data">')
    return errors


def strip_css(text, name, errors):
    """The CSS with comments and strings blanked (newlines kept, for line numbers)."""
    out = []
    i = 0
    while i < len(text):
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                errors.append(f"{name}:{line_of(text, i)}: comment never closed")
                return "".join(out)
            out.append(re.sub(r"[^\n]", " ", text[i:end + 2]))
            i = end + 2
        elif text[i] in "\"'":
            quote = text[i]
            j = i + 1
            while j < len(text) and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if j >= len(text) or text[j] != quote:
                errors.append(f"{name}:{line_of(text, i)}: string never closed")
                return "".join(out)
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def check_css(path, scripts):
    errors = []
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return [f"{path.name}: empty"]
    bare = strip_css(text, path.name, errors)
    depth = 0
    opened = []
    for i, c in enumerate(bare):
        if c == "{":
            depth += 1
            opened.append(i)
        elif c == "}":
            depth -= 1
            if depth < 0:
                errors.append(f"{path.name}:{line_of(text, i)}: '}}' with no open block")
                depth = 0
            else:
                opened.pop()
    for i in opened:
        errors.append(f"{path.name}:{line_of(text, i)}: '{{' never closed")
    rules = bare.count("{")
    if rules < 10:
        errors.append(f"{path.name}: only {rules} rules; is this the report's style sheet?")
    # Custom properties: every var(--x) of the style sheet or the script is defined.
    defined = set(re.findall(r"(--[\w-]+)\s*:", bare))
    for where, source in [(path.name, bare)] + scripts:
        for m in re.finditer(r"var\(\s*(--[\w-]+)", source):
            if m.group(1) not in defined:
                errors.append(f"{where}:{line_of(source, m.start())}: var({m.group(1)}) is not "
                              f"defined in {path.name}")
    return errors


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    folder = pathlib.Path(sys.argv[1])
    # The walk/sweep page and the universe page (universe.html, universe.js) share report.css.
    scripts = [(name, (folder / name).read_text(encoding="utf-8"))
               for name in ("report.js", "universe.js")]
    errors = (check_html(folder / "report.html") +
              check_html(folder / "universe.html", "// @inline universe.js") +
              check_css(folder / "report.css", scripts))
    for e in errors:
        print("FAIL:", e)
    if errors:
        print(f"{len(errors)} problem(s) in {folder}")
        return 1
    print(f"ok: report.html and universe.html well formed, report.css balanced, custom "
          f"properties defined ({folder})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
