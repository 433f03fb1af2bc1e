#!/usr/bin/env python3
"""Counts what issue 32 ("one definition per op") measures in product code.

Product code is every C/C++/TableGen source under dialects/ lib/ passes/
runtime/ tools/ (*.c *.cc *.cpp *.h *.hpp *.inc *.td *.cu; test/ is not
product code). Comments are not stripped. Each metric prints one line,
"<name>: <count>"; with --list, its sites follow, one "  path:line: text" each.
This measures; it does not judge (no exit status but 0 on success).

(a) mnemonic-string comparisons: a string literal that names an op compared
    with an expression that holds an op's name. The op names are the
    mnemonics of every `def X : Y<"mnemonic"` in dialects/*/*.td, alone or
    with their dialect prefix ("gelu", "graph.gelu"). An expression holds an
    op's name when it is one of the identifiers m, mnemonic, opName, name,
    or ends in getMnemonic(), stripDialect(), getStringRef() or
    getName(). Counted, one per site:
      - EXPR == "op" / EXPR != "op" / "op" == EXPR / "op" != EXPR;
      - llvm::is_contained({... "op" ...}, EXPR): one per call;
      - .Case("op", ...) / .Cases("op", ...) inside a StringSwitch over EXPR:
        one per .Case/.Cases call;
      - EXPR.starts_with("p") / ends_with / consume_front / consume_back
        where "p" is a proper prefix or suffix of some op's mnemonic;
      - EXPR == X::getOperationName() (a string comparison all the same).
(b) attribute defaults read by name: a read of an attribute by its name that
    supplies the default itself, one per site:
      - a call of a helper whose name ends in Attr and does not begin with
        get/set/make/build/add/create/remove/has/is followed by a capital
        (intAttr, floatAttr, strAttr, intsAttr; not getNamedAttr, which
        builds one) with a string literal argument
        followed by one more argument: f(op, "name", default) or
        e.f("name", default);
      - such a call with the literal as its last argument directly followed
        by .value_or(: f("name").value_or(default);
      - a typed getter getInt/getFloat/getString/getBool/getInts/getFloats
        with a string literal first argument and a second (the host kernels'
        former ctx.getInt("group", 1));
      - readChoice(ctx, "name", "literal", ...): a string default;
      - getAttrOfType<...>("name") or getAttr("name") whose statement or
        the next three lines supply a fallback: a "?" ... ":" conditional,
        .value_or(, or an `else`/`return <literal>` after the if.
(c) tanh-GELU constant: files holding 0.7978845608 or 0.044715.
(d) upward include arrows: an #include "P" in folder A of a file found in
    folder B (P resolved against the repository root, then runtime/include)
    where B sits on a higher layer than A. The floor plan, bottom up:
      0 ground:    lib/Support, lib/Artifact, runtime/include
      1 dialects
      2 compiler:  lib/Import, lib/HostKernels, passes, lib/Codegen
      3 lib/Pipeline
      4 runtime/src
      5 tools
    Folders on one layer may include each other. The ground floor is what
    compiler and runtime share: support code, the artifact format (reader,
    staging, dtype table) and the public C headers. The dialects sit below
    the rest of the compiler: they fold through an interface that
    lib/HostKernels implements, never by including it. The runtime sits
    above the compiler, which must not need it. Each (A -> B) pair prints
    once, with its number of includes; the count is the number of pairs.

--root DIR measures another checkout (e.g. main, for a before count).
"""

import argparse
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = ["dialects", "lib", "passes", "runtime", "tools"]
EXTENSIONS = (".c", ".cc", ".cpp", ".h", ".hpp", ".inc", ".td", ".cu")

LAYERS = [
    ["lib/Support", "lib/Artifact", "runtime/include"],
    ["dialects"],
    ["lib/Import", "lib/HostKernels", "passes", "lib/Codegen"],
    ["lib/Pipeline"],
    ["runtime/src"],
    ["tools"],
]
FOLDERS = sorted((f for layer in LAYERS for f in layer), key=len, reverse=True)
LAYER_OF = {f: i for i, layer in enumerate(LAYERS) for f in layer}

NAME_EXPR = (r"(?:\b(?:m|mnemonic|opName|name)\b"
             r"|(?:getMnemonic|stripDialect|getStringRef|getName)\(\))")
LITERAL = r'"([a-z0-9_.]+)"'
# A helper that reads an attribute: its name ends in Attr and does not make,
# write or query one (getNamedAttr, setAttr, hasAttr, ...).
READER = (r"\b(?!(?:get|set|make|build|add|create|remove|has|is)[A-Z])"
          r"[a-z]\w*Attr\b")


def product_files():
    for top in PRODUCT:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, ROOT)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8",
              errors="replace") as f:
        return f.read()


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def mnemonics(files):
    names = set()
    for path in files:
        if path.endswith(".td"):
            for match in re.finditer(r'\bdef\s+\w+\s*:\s*\w+<\s*"([a-z0-9_.]+)"',
                                     read(path)):
                names.add(match.group(1))
    dialect_names = set()
    for path in files:
        if path.endswith(".td"):
            for match in re.finditer(r'let\s+name\s*=\s*"(\w+)"', read(path)):
                dialect_names.add(match.group(1))
    full = {f"{d}.{m}" for d in dialect_names for m in names}
    return names | full


def is_op_name(literal, ops):
    return literal in ops


def is_affix(literal, ops):
    return any(op != literal and (op.startswith(literal) or
                                  op.endswith(literal)) for op in ops)


def mnemonic_comparisons(path, text, ops):
    sites = []
    compare = re.compile(NAME_EXPR + r"\s*[!=]=\s*" + LITERAL + "|" + LITERAL +
                         r"\s*[!=]=\s*" + NAME_EXPR)
    for match in compare.finditer(text):
        literal = match.group(1) or match.group(2)
        if is_op_name(literal, ops):
            sites.append(line_of(text, match.start()))
    for match in re.finditer(NAME_EXPR + r"\s*[!=]=\s*[\w:]+::getOperationName\(\)",
                             text):
        sites.append(line_of(text, match.start()))
    for match in re.finditer(r"is_contained\(\s*\{([^{}]*)\}\s*,\s*([^()]*(?:\(\))?)\s*\)",
                             text, re.S):
        literals = re.findall(LITERAL, match.group(1))
        if (re.search(NAME_EXPR + r"\s*$", match.group(2).strip())
                and any(is_op_name(l, ops) for l in literals)):
            sites.append(line_of(text, match.start()))
    for match in re.finditer(r"StringSwitch<[^;]*?>\(\s*([^;]*?)\)\s*((?:\s*\.\w+\([^;]*?\))+)\s*;",
                             text, re.S):
        subject = match.group(1).strip()
        if not re.search(NAME_EXPR + r"\s*$", subject):
            continue
        chain_start = match.start(2)
        for case in re.finditer(r"\.Cases?\(([^()]*)", match.group(2)):
            if any(is_op_name(l, ops) for l in re.findall(LITERAL, case.group(1))):
                sites.append(line_of(text, chain_start + case.start()))
    for match in re.finditer(NAME_EXPR + r"\s*\.\s*(?:starts_with|ends_with|consume_front|consume_back)\(\s*" + LITERAL,
                             text):
        if is_affix(match.group(1), ops):
            sites.append(line_of(text, match.start()))
    return sorted(set(sites))


def attribute_defaults(path, text):
    sites = []
    for match in re.finditer(READER + r'\(\s*(?:[^,()"]+,\s*)?"\w+"\s*,\s*[^\s)]',
                             text):
        sites.append(line_of(text, match.start()))
    for match in re.finditer(READER + r'\(\s*(?:[^,()"]+,\s*)?"\w+"\s*\)\s*\.value_or\(',
                             text):
        sites.append(line_of(text, match.start()))
    for match in re.finditer(
            r'\bget(?:Int|Float|String|Bool|Ints|Floats)\(\s*"\w+"\s*,\s*[^\s)]',
            text):
        sites.append(line_of(text, match.start()))
    for match in re.finditer(r'\breadChoice\([^,()]+,\s*"\w+"\s*,\s*"', text):
        sites.append(line_of(text, match.start()))
    lines = text.split("\n")
    for match in re.finditer(r'\bgetAttr(?:OfType<[^>]*>)?\(\s*"\w+"\s*\)', text):
        number = line_of(text, match.start())
        window = "\n".join(lines[number - 1:number + 3])
        here = text[match.end():].split(";", 1)[0]
        if (re.search(r"\?[^;]*:", here) or ".value_or(" in window or
                re.search(r"^\s*(?:else\b|return\s+[-\w.\"']+;)", "\n".join(
                    lines[number:number + 3]), re.M)):
            sites.append(number)
    return sorted(set(sites))


def folder_of(path):
    for folder in FOLDERS:
        if path == folder or path.startswith(folder + "/"):
            return folder
    return None


def upward_includes(files):
    arrows = defaultdict(list)
    for path in files:
        source = folder_of(path)
        if source is None:
            continue
        for number, line in enumerate(read(path).split("\n"), 1):
            match = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not match:
                continue
            target = None
            for base in ("", "runtime/include/"):
                if os.path.isfile(os.path.join(ROOT, base + match.group(1))):
                    target = folder_of(base + match.group(1))
                    break
            if target and LAYER_OF[target] > LAYER_OF[source]:
                arrows[(source, target)].append(f"{path}:{number}: {line.strip()}")
    return arrows


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="print each metric's sites")
    parser.add_argument("--root", default=ROOT,
                        help="the tree to measure (default: this checkout)")
    args = parser.parse_args()
    ROOT = os.path.abspath(args.root)
    files = list(product_files())
    ops = mnemonics(files)

    def report(name, sites):
        print(f"{name}: {len(sites)}")
        if args.list:
            for site in sites:
                print(f"  {site}")

    texts = {path: read(path) for path in files}
    lines = {path: text.split("\n") for path, text in texts.items()}

    def located(path, numbers):
        return [f"{path}:{n}: {lines[path][n - 1].strip()}" for n in numbers]

    report("mnemonic-string comparisons",
           [s for p in files for s in located(p, mnemonic_comparisons(p, texts[p], ops))])
    report("attribute defaults read by name",
           [s for p in files for s in located(p, attribute_defaults(p, texts[p]))])
    report("files with the tanh-GELU constant",
           [p for p in files if re.search(r"0\.7978845608|0\.044715", texts[p])])
    arrows = upward_includes(files)
    print(f"upward include arrows: {len(arrows)}")
    for (source, target), sites in sorted(arrows.items()):
        print(f"  {source} -> {target} ({len(sites)} includes)")
        if args.list:
            for site in sites:
                print(f"    {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
