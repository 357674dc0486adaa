#!/usr/bin/env python3
"""Keep the window's translations in step with the source: list, fill in, build, check.

    .venv/bin/python scripts/translations.py update   # after changing visible text
    .venv/bin/python scripts/translations.py check    # what the tests run: exits 1 when stale

``update`` runs ``pyside6-lupdate`` over ``desktop/`` (``tr("…")`` in the window,
``QT_TR_NOOP("…")`` anywhere), which adds new texts to ``resources/translations/nanobot_<lang>.ts``
(Qt Linguist's format: translators open it in Linguist) and drops texts no longer used; it then
fills in translations from ``resources/translations/staging/<lang>/*.json`` files (``{"English
text": "translation"}``, a convenient way to hand in many at once; folded in and deleted; a text
used with a disambiguation, ``tr("New chat", "action")``, is keyed ``"New chat @@ action"``), and
builds the ``.qm`` file the app loads with ``pyside6-lrelease``. No file locations are kept in the
``.ts`` file, so editing code does not change it.

``check`` fails (listing what) when a text in the code is missing from the ``.ts`` file, a text
has no finished translation, or the ``.qm`` file is not what the ``.ts`` file builds.

The config schema's field texts (``title``, ``description``, and the ``unit`` and
``placeholder`` of ``json_schema_extra``, which Settings shows as labels, tooltips, suffixes and
placeholders) are data of pydantic models, not literals ``pyside6-lupdate`` can find: ``update``
first writes them into ``desktop/ui/settings/schema_texts.py`` as ``QT_TR_NOOP`` lines
(:func:`schema_texts`), and ``check`` fails when that file is not what the schema gives.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "resources" / "translations"
STAGING = FOLDER / "staging"
LANGUAGES = ("zh_CN",)
BIN = Path(sys.executable).parent
SCHEMA_TEXTS = ROOT / "desktop" / "ui" / "settings" / "schema_texts.py"


def ts_file(language: str) -> Path:
    """The translation source of ``language``."""
    return FOLDER / f"nanobot_{language}.ts"


def qm_file(language: str) -> Path:
    """The built translation of ``language`` (what the app loads)."""
    return FOLDER / f"nanobot_{language}.qm"


def _tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    on_path = shutil.which(name)
    if on_path is None:
        raise SystemExit(f"{name} is missing (it comes with PySide6: scripts/setup.sh)")
    return on_path


def sources() -> list[Path]:
    """The Python files whose text is listed (all of ``desktop/``)."""
    return sorted(p for p in (ROOT / "desktop").rglob("*.py") if "__pycache__" not in p.parts)


def schema_texts() -> list[str]:
    """Every field text of the config schema's models (``desktop.core.config`` and below), in
    the order the modules define them, each once: titles, descriptions, units, placeholders."""
    import importlib
    import inspect
    import pkgutil

    from pydantic import BaseModel

    sys.path.insert(0, str(ROOT))
    package = importlib.import_module("desktop.core.config")
    names = [
        package.__name__,
        *sorted(m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")),
    ]
    found: dict[str, None] = {}
    for name in names:
        module = importlib.import_module(name)
        for model in vars(module).values():
            if not (
                inspect.isclass(model)
                and issubclass(model, BaseModel)
                and model.__module__ == module.__name__
            ):
                continue
            for info in model.model_fields.values():
                extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
                shown = [extra.get("unit"), extra.get("placeholder")]
                for text in (info.title, info.description, *shown):
                    if isinstance(text, str) and text:
                        found.setdefault(text, None)
    return list(found)


def schema_texts_source() -> str:
    """The source of ``schema_texts.py`` for the schema as it is (formatted by ruff)."""
    lines = [
        '"""The config schema\'s field texts, marked for translation (generated: do not edit).',
        "",
        "Written by ``scripts/translations.py update`` from the pydantic models of",
        "``desktop.core.config`` (titles, descriptions, units), so ``pyside6-lupdate`` lists them;",
        "Settings shows them through ``tr()`` (:func:`desktop.ui.settings.schema_form.title_of`).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from desktop.core.utils.i18n import QT_TR_NOOP",
        "",
        "TEXTS: tuple[str, ...] = (",
        *(f"    QT_TR_NOOP({json.dumps(text, ensure_ascii=False)})," for text in schema_texts()),
        ")",
        "",
    ]
    formatted = subprocess.run(
        [_tool("ruff"), "format", "--stdin-filename", str(SCHEMA_TEXTS), "-"],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return formatted.stdout


def lupdate(target: Path) -> None:
    """List the texts of :func:`sources` into ``target`` (kept translations stay)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False) as listing:
        listing.write("\n".join(str(p) for p in sources()))
    try:
        subprocess.run(
            [
                _tool("pyside6-lupdate"),
                f"@{listing.name}",
                "-locations",
                "none",
                "-no-obsolete",
                "-silent",
                "-ts",
                str(target),
            ],
            check=True,
        )
    finally:
        Path(listing.name).unlink()


def lrelease(ts: Path, qm: Path) -> None:
    """Build ``qm`` from ``ts``."""
    subprocess.run(
        [_tool("pyside6-lrelease"), "-silent", "-nounfinished", str(ts), "-qm", str(qm)],
        check=True,
    )


SEPARATOR = " @@ "  # a staging key for one use of a text: "New chat @@ action"


def key_of(message: ET.Element) -> str:
    """How a message is named: its English text, with its disambiguation (``tr(text,
    "action")``, kept by lupdate as ``<comment>``) after :data:`SEPARATOR` when it has one."""
    source = message.findtext("source") or ""
    comment = message.findtext("comment")
    return f"{source}{SEPARATOR}{comment}" if comment else source


def messages(ts: Path) -> dict[str, str | None]:
    """Key (:func:`key_of`) -> finished translation (``None``: not translated yet) of ``ts``."""
    found: dict[str, str | None] = {}
    for message in ET.parse(ts).getroot().iter("message"):
        translation = message.find("translation")
        done = translation is not None and translation.get("type") is None and translation.text
        found[key_of(message)] = translation.text if done and translation is not None else None
    return found


def fill(ts: Path, translations: dict[str, str]) -> int:
    """Write ``translations`` into ``ts`` where it lists the text; how many were written."""
    tree = ET.parse(ts)
    written = 0
    for message in tree.getroot().iter("message"):
        text = translations.get(key_of(message))
        translation = message.find("translation")
        if text is None or translation is None:
            continue
        translation.text = text
        translation.attrib.pop("type", None)
        written += 1
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    ts.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8"
    )
    return written


def staged(language: str) -> tuple[dict[str, str], list[Path]]:
    """The translations handed in under ``staging/<language>/`` and their files."""
    files = sorted((STAGING / language).glob("*.json"))
    merged: dict[str, str] = {}
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise SystemExit(f"{path}: expected an object of English text -> translation")
        merged.update({str(k): str(v) for k, v in data.items() if str(v).strip()})
    return merged, files


def update(keep_staging: bool = False) -> int:
    """List, fill in and build every language; prints what is still untranslated.

    Args:
        keep_staging: Leave the staging files in place (a branch that hands them in and
            builds to try them, leaving the ``.ts``/``.qm`` files to the merge).
    """
    FOLDER.mkdir(parents=True, exist_ok=True)
    source = schema_texts_source()
    if not SCHEMA_TEXTS.exists() or SCHEMA_TEXTS.read_text(encoding="utf-8") != source:
        SCHEMA_TEXTS.write_text(source, encoding="utf-8")
        print(f"wrote {SCHEMA_TEXTS.relative_to(ROOT)}")
    for language in LANGUAGES:
        ts = ts_file(language)
        if not ts.exists():
            ts.write_text(
                '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n'
                f'<TS version="2.1" language="{language}"></TS>\n',
                encoding="utf-8",
            )
        lupdate(ts)
        translations, files = staged(language)
        written = fill(ts, translations)
        for path in files if not keep_staging else []:
            path.unlink()
        lrelease(ts, qm_file(language))
        missing = [text for text, done in messages(ts).items() if done is None]
        print(
            f"{language}: {len(messages(ts))} texts, {written} filled in, "
            f"{len(missing)} untranslated"
        )
        for text in missing[:50]:
            print(f"  untranslated: {text!r}")
    return 0


def problems(language: str) -> list[str]:
    """What is stale or missing in ``language``'s files (empty: all in step)."""
    ts, qm = ts_file(language), qm_file(language)
    if not ts.exists() or not qm.exists():
        return [f"{ts.name} or {qm.name} is missing: run scripts/translations.py update"]
    found: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder) / ts.name
        shutil.copy(ts, fresh)
        lupdate(fresh)
        listed, current = messages(ts), messages(fresh)
        found += [f"not listed (run update): {t!r}" for t in current if t not in listed]
        found += [f"no longer used (run update): {t!r}" for t in listed if t not in current]
        found += [f"not translated: {t!r}" for t, done in listed.items() if done is None]
        built = Path(folder) / qm.name
        lrelease(ts, built)
        if built.read_bytes() != qm.read_bytes():
            found.append(f"{qm.name} is not what {ts.name} builds (run update)")
    return found


def check() -> int:
    """Exit status 1 (and the list) when any language is out of step."""
    failed = False
    if (
        not SCHEMA_TEXTS.exists()
        or SCHEMA_TEXTS.read_text(encoding="utf-8") != schema_texts_source()
    ):
        failed = True
        print(f"{SCHEMA_TEXTS.relative_to(ROOT)} is not what the config schema gives (run update)")
    for language in LANGUAGES:
        for problem in problems(language):
            failed = True
            print(f"{language}: {problem}")
    return 1 if failed else 0


def main() -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("update", "check"))
    parser.add_argument(
        "--keep-staging", action="store_true", help="update: leave the staging files in place"
    )
    args = parser.parse_args()
    return update(args.keep_staging) if args.command == "update" else check()


if __name__ == "__main__":
    raise SystemExit(main())
