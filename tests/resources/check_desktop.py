#!/usr/bin/env python3
# Checks the desktop integration files in resources/: the .desktop entry (desktop-file-validate
# when installed, and always our own key checks), the MIME type it names, and the icon it names.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Usage: check_desktop.py RESOURCES_DIR

Exits 0 when every check passes, 1 with one line per problem otherwise."""

import configparser
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"
REQUIRED = ("Type", "Name", "Exec", "Icon", "MimeType", "Categories")


def check(res: Path) -> list[str]:
    problems: list[str] = []
    desktop = res / "cake-workbench.desktop"

    validator = shutil.which("desktop-file-validate")
    if validator:
        run = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
        # desktop-file-validate exits 0 on hints; errors and warnings are problems.
        for line in (run.stdout + run.stderr).splitlines():
            if "error:" in line or "warning:" in line:
                problems.append(f"desktop-file-validate: {line.strip()}")
        if run.returncode != 0 and not problems:
            problems.append(f"desktop-file-validate exited {run.returncode}")
    else:
        print("check_desktop: desktop-file-validate not installed (Debian package "
              "desktop-file-utils); running the key checks only")

    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(desktop, encoding="utf-8")
    if "Desktop Entry" not in parser:
        return problems + [f"{desktop.name}: no [Desktop Entry] group"]
    entry = parser["Desktop Entry"]
    for key in REQUIRED:
        if not entry.get(key, "").strip():
            problems.append(f"{desktop.name}: missing or empty key {key}")
    if entry.get("Type") not in (None, "Application"):
        problems.append(f"{desktop.name}: Type is {entry.get('Type')!r}, not 'Application'")

    exec_words = entry.get("Exec", "").split()
    if exec_words and exec_words[0] != "cake-workbench":
        problems.append(f"{desktop.name}: Exec runs {exec_words[0]!r}, not cake-workbench")
    if exec_words and not any(w in ("%f", "%F", "%u", "%U") for w in exec_words[1:]):
        problems.append(f"{desktop.name}: Exec takes no file argument (%F)")

    categories = entry.get("Categories", "").split(";")
    if "Development" not in categories:
        problems.append(f"{desktop.name}: Categories lacks Development")

    icon = entry.get("Icon", "")
    if icon and not (res / f"{icon}.svg").is_file():
        problems.append(f"{desktop.name}: Icon={icon} but resources/{icon}.svg does not exist")

    # Every MIME type the entry claims is defined by our shared-mime-info file with a glob.
    mime_file = res / "cake-ir.xml"
    try:
        root = ET.parse(mime_file).getroot()
    except (OSError, ET.ParseError) as e:
        return problems + [f"{mime_file.name}: {e}"]
    defined = {t.get("type"): [g.get("pattern") for g in t.iter(f"{MIME_NS}glob")]
               for t in root.iter(f"{MIME_NS}mime-type")}
    claimed = [m for m in entry.get("MimeType", "").split(";") if m]
    if "text/x-cake-ir" not in claimed:
        problems.append(f"{desktop.name}: MimeType lacks text/x-cake-ir")
    for mime in claimed:
        if mime not in defined:
            problems.append(f"{desktop.name}: MimeType {mime} is not defined in {mime_file.name}")
    if "*.cake" not in defined.get("text/x-cake-ir", []):
        problems.append(f"{mime_file.name}: text/x-cake-ir has no glob *.cake")

    # The MIME file as a desktop installs it: update-mime-database must accept it and map
    # *.cake to text/x-cake-ir.
    updater = shutil.which("update-mime-database")
    if updater:
        with tempfile.TemporaryDirectory() as tmp:
            packages = Path(tmp) / "packages"
            packages.mkdir()
            shutil.copy(mime_file, packages / mime_file.name)
            run = subprocess.run([updater, tmp], capture_output=True, text=True,
                                 env={"PATH": "/usr/bin:/bin", "XDG_DATA_DIRS": str(Path(tmp).parent)})
            globs = Path(tmp) / "globs2"
            mapped = globs.is_file() and any(
                line.split(":", 1)[1:] == ["text/x-cake-ir:*.cake"]
                for line in globs.read_text().splitlines())
            if run.returncode != 0:
                problems.append(f"update-mime-database exited {run.returncode}: "
                                f"{run.stderr.strip()}")
            elif not mapped:
                problems.append("update-mime-database: *.cake is not mapped to text/x-cake-ir")
    else:
        print("check_desktop: update-mime-database not installed (Debian package "
              "shared-mime-info); MIME database not built")
    return problems + check_metainfo(res, desktop.name, claimed)


def check_metainfo(res: Path, desktop_name: str, mime_types: list[str]) -> list[str]:
    """The AppStream metainfo: appstreamcli validate (errors and warnings are problems), and
    that it launches our .desktop entry and provides the binaries and MIME types we install."""
    problems: list[str] = []
    meta = res / "cake-workbench.metainfo.xml"
    validator = shutil.which("appstreamcli")
    if validator:
        run = subprocess.run([validator, "validate", "--no-net", "--no-color", str(meta)],
                             capture_output=True, text=True)
        for line in (run.stdout + run.stderr).splitlines():
            if line.startswith(("E:", "W:")):
                problems.append(f"appstreamcli: {line.strip()}")
        if run.returncode != 0 and not problems:
            problems.append(f"appstreamcli validate exited {run.returncode}: {run.stdout.strip()}")
    else:
        print("check_desktop: appstreamcli not installed (Debian package appstream); "
              "running the key checks only")
    try:
        root = ET.parse(meta).getroot()
    except (OSError, ET.ParseError) as e:
        return problems + [f"{meta.name}: {e}"]
    if root.tag != "component" or root.get("type") != "desktop-application":
        problems.append(f"{meta.name}: not a desktop-application component")
    launch = [l.text for l in root.iter("launchable") if l.get("type") == "desktop-id"]
    if launch != [desktop_name]:
        problems.append(f"{meta.name}: launchable desktop-id {launch} is not [{desktop_name!r}]")
    binaries = {b.text for b in root.iter("binary")}
    for b in ("cake-workbench", "cake"):
        if b not in binaries:
            problems.append(f"{meta.name}: does not provide binary {b}")
    media = {m.text for m in root.iter("mediatype")}
    for m in mime_types:
        if m not in media:
            problems.append(f"{meta.name}: does not provide mediatype {m} (the .desktop claims it)")
    lic = root.findtext("project_license", "")
    if lic != "GPL-3.0-or-later":
        problems.append(f"{meta.name}: project_license is {lic!r}, not GPL-3.0-or-later")
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(Path(sys.argv[1]))
    for p in problems:
        print(f"check_desktop: {p}")
    if not problems:
        print("check_desktop: resources/cake-workbench.desktop, cake-ir.xml and the metainfo are valid")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
