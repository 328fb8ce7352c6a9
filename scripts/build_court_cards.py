"""Rebuild the court-card figures of the table (``games/static/games/cards/court/*.svg``, run by hand).

Source: the npm package ``@letele/playing-cards`` 0.1.0 (CC0-1.0): Adrian Kennard's public-domain card
designs (https://www.me.uk/cards/) turned into React components by svgr. This script:

1. ``npm pack`` the package into a temporary folder (the npm registry; needs ``npm`` and ``node``);
2. runs its bundle with a stub ``react`` whose ``createElement`` writes SVG markup, which gives the
   cards back as SVG files (svgr's camelCase props turned back into SVG attribute names);
3. keeps, of each jack, queen and king, only the framed figure: the card's outline and its small corner
   indices are dropped (the table draws its own large indices, ``games/static/games/js/cards.js``), with
   every symbol the figure references;
4. optimizes them with svgo 4.1.0 (``npx``; multipass, coordinates rounded to whole units: the figures'
   symbols are 1300 units wide and drawn at most ~80 px, so a unit is under 0.1 px).

    python scripts/build_court_cards.py [--out games/static/games/cards/court]

Prints each file's size. The licence and source notice next to the files is written by hand (NOTICE).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "@letele/playing-cards@0.1.0"
SVGO = "svgo@4.1.0"
SUITS = {"C": "c", "D": "d", "H": "h", "S": "s"}

REACT_STUB = r"""
// A stub React whose createElement writes SVG markup (turns svgr components back into files).
const KEEP = new Set(["viewBox", "preserveAspectRatio", "patternUnits", "patternContentUnits",
  "gradientUnits", "gradientTransform", "patternTransform", "clipPathUnits", "maskUnits",
  "maskContentUnits", "markerWidth", "markerHeight", "refX", "refY", "spreadMethod", "stdDeviation",
  "textLength", "lengthAdjust", "startOffset", "pathLength"]);
function attr(k) {
  if (k === "className") return "class";
  if (k === "xmlnsXlink") return "xmlns:xlink";
  if (k.startsWith("xlink")) return "xlink:" + k.slice(5).toLowerCase();
  if (k === "xmlSpace") return "xml:space";
  if (KEEP.has(k)) return k;
  return k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
function createElement(tag, props, ...children) {
  const parts = [];
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "style") throw new Error("inline style: the site's CSP would refuse it");
    parts.push(`${attr(k)}="${esc(v)}"`);
  }
  const inner = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (typeof c === "object" ? c.html : esc(c))).join("");
  const open = `<${tag}${parts.length ? " " + parts.join(" ") : ""}`;
  return { html: inner ? `${open}>${inner}</${tag}>` : `${open}/>` };
}
module.exports = { createElement };
"""

DUMP = r"""
const deck = require("./deck.cjs");
const fs = require("fs");
fs.mkdirSync("cards", { recursive: true });
for (const [name, C] of Object.entries(deck)) fs.writeFileSync(`cards/${name}.svg`, C({}).html);
"""


def _run(args: list[str], cwd: Path) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def unpack_cards(work: Path) -> Path:
    """The package's 56 cards as SVG files in ``work/cards`` (named as its exports: ``Sk``, ``H10``...)."""
    tarball = _run(["npm", "pack", "--silent", PACKAGE], work).strip().splitlines()[-1]
    _run(["tar", "xzf", tarball], work)
    (work / "node_modules/react").mkdir(parents=True)
    (work / "node_modules/react/index.js").write_text(REACT_STUB)
    helpers = work / "node_modules/@babel/runtime/helpers"
    helpers.mkdir(parents=True)
    (helpers / "extends.js").write_text("module.exports = (...a) => Object.assign({}, ...a);\n")
    bundle = (work / "package/dist/index.esm.js").read_text()
    bundle = bundle.replace("import _extends from '@babel/runtime/helpers/extends';",
                            "const _extends = require('@babel/runtime/helpers/extends');")
    bundle = bundle.replace("import * as React from 'react';", "const React = require('react');")
    bundle = re.sub(r"export \{([^}]*)\};",
                    lambda m: "module.exports = {" + re.sub(r"(\w+) as (\w+)", r"\2: \1", m.group(1)) + "};",
                    bundle)
    (work / "deck.cjs").write_text(bundle)
    (work / "dump.cjs").write_text(DUMP)
    _run(["node", "dump.cjs"], work)
    return work / "cards"


def figure(svg: str) -> str:
    """The framed court figure of one card, without the card's outline and corner indices."""
    prefix = re.search(r'class="([A-Z]-[A-Z])_svg__card"', svg)
    assert prefix is not None
    pre = prefix.group(1) + "_svg__"
    defs_match = re.search(r"<defs>(.*)</defs>", svg, re.S)
    assert defs_match is not None
    body = svg[svg.index("</defs>") + 7 : svg.rindex("</svg>")]
    # the figure: two halves (one turned) of six layers, each drawn in the 164.8 x 260.8 frame
    uses = re.findall(r'<use (?:transform="rotate\(180\)" )?width="164\.8" height="260\.8" x="-82\.4" '
                      r'y="-130\.4" xlink:href="#[^"]+"/>', body)
    frame = re.findall(r'<use xlink:href="#' + pre + r'i"[^>]*/>', body)
    assert len(uses) == 12 and len(frame) == 1, (pre, len(uses), len(frame))
    parts = {(m[1] or m[2]): m[0] for m in re.findall(
        r'(<symbol id="([^"]+)".*?</symbol>|<path id="([^"]+)"[^>]*/>)', defs_match.group(1), re.S)}
    todo = set(re.findall(r"#(" + pre + r"[a-z]+)", "".join(uses + frame)))
    kept: set[str] = set()
    while todo:  # every symbol the figure uses, and the ones those use
        ref = todo.pop()
        kept.add(ref)
        todo |= set(re.findall(r"#(" + pre + r"[a-z]+)", parts[ref])) - kept
    defs = "".join(part for name, part in parts.items() if name in kept)
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'viewBox="-83 -131 166 262"><defs>{defs}</defs>{"".join(uses + frame)}</svg>')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "games/static/games/cards/court")
    out = parser.parse_args().out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cards = unpack_cards(work)
        raw = work / "court"
        raw.mkdir()
        for suit, ours in SUITS.items():
            for rank in "jqk":
                card = (cards / f"{suit}{rank}.svg").read_text()
                (raw / f"{rank.upper()}{ours}.svg").write_text(figure(card))
        config = work / "svgo.config.mjs"
        config.write_text(
            'export default { multipass: true, floatPrecision: 0, plugins: ["preset-default"] };\n'
        )
        _run(["npx", "--yes", SVGO, "--quiet", "--config", str(config), "-f", str(raw), "-o", str(out)], work)
    total = 0
    for path in sorted(out.glob("*.svg")):
        total += path.stat().st_size
        print(f"{path.name}: {path.stat().st_size} bytes")
    print(f"total: {total} bytes")


if __name__ == "__main__":
    main()
