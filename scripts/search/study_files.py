"""A live search study's files (scripts/search/search_batch_study.sh's folder), read from the folder or
from inside an archive of studies, ARCHIVE.tar.xz:FOLDER (the committed studies are in
results/reference/<gpu>/search/evidence.tar.xz, which kept some runs' CSV alone, without the .jsonl).
"""
import csv
import io
import itertools
import json
import re
import tarfile
from pathlib import Path, PurePosixPath


TEXT = (".txt", ".tsv", ".json", ".jsonl", ".csv", ".log", ".md")  # what a study writes that the tables read


def study_files(study):
    """{path inside the study: text} of a study's text files, from its folder or from ARCHIVE.tar.xz:FOLDER
    (ARCHIVE.tar.xz:. for the whole archive)."""
    archive, _, inside = str(study).partition(".tar.xz:")
    if not inside:
        root = Path(study)
        return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file() and p.name.endswith(TEXT)}
    prefix = "" if inside == "." else inside.rstrip("/") + "/"
    with tarfile.open(archive + ".tar.xz") as tar:
        return {m.name[len(prefix):]: tar.extractfile(m).read().decode() for m in tar
                if m.isfile() and m.name.startswith(prefix) and m.name.endswith(TEXT)}


def bytes_of(path):
    """One file's bytes, from the file system or from inside an archive, ARCHIVE.tar.xz:PATH."""
    archive, _, inside = str(path).partition(".tar.xz:")
    if not inside:
        return Path(path).read_bytes()
    with tarfile.open(archive + ".tar.xz") as tar:
        return tar.extractfile(inside).read()


def text_of(path, missing=None):
    """One file's text, from the file system or from inside an archive, ARCHIVE.tar.xz:PATH;
    `missing` where a file of the file system is not there (None: that is an error)."""
    if ".tar.xz:" in str(path):
        return bytes_of(path).decode()
    return missing if missing is not None and not Path(path).exists() else Path(path).read_text()


def walls(text):
    """A study's walls.txt ("NAME ... wall_s=S" per run, in the order they ran) as {NAME: S}; the
    first studies' and the energy studies' walls.tsv ("NAME<tab>MS", "<tab>exit N" after it or not) too."""
    out = {}
    for line in text.splitlines():
        wall = re.search(r"wall_s=([0-9.e-]+)", line)
        tsv = re.fullmatch(r"(\S+)\t(\d+)(?:\texit \d+)?", line)
        if wall:  # the name: the words before the first key=value
            out[" ".join(itertools.takewhile(lambda w: "=" not in w, line.split()))] = float(wall.group(1))
        elif tsv:
            out[tsv.group(1)] = int(tsv.group(2)) / 1e3
    return out


def compile_times(files):
    """walls_compile.txt's lines, "NAME kernels=N compile_s_sum=S compile_s_max=M", by run."""
    times = {}
    for line in files.get("walls_compile.txt", "").splitlines():
        name, *fields = line.split()
        times[name] = {k: float(v) for k, v in (f.split("=") for f in fields)}
    return times


def folders(files):
    return {str(PurePosixPath(name).parent) for name in files}


def one_of(files, folder, suffix):
    """The text of the first file right in `folder` whose name ends in `suffix`, or None."""
    return next((text for name, text in sorted(files.items())
                 if str(PurePosixPath(name).parent) == folder and name.endswith(suffix)), None)


def _number(value):
    return float(value) if value not in ("", None) else 0


def csv_records(text):
    """A CSV's rows as the record fields the study tables read (the CSV flattens "compile.waited_ms"
    to "compile_waited_ms")."""
    return [{"point_id": row["point_id"], "variant": row.get("variant"), "status": row["status"],
             "timing": {"median_ms": _number(row.get("timing_median_ms"))},
             "compile": {"compile_ms": _number(row.get("compile_compile_ms")), "waited_ms": _number(row.get("compile_waited_ms")),
                         "cache_hit": row.get("compile_cache_hit") in ("true", "True", "1")},
             "time_use": {"compiler_wait_s": _number(row.get("time_use_compiler_wait_s"))}}
            for row in csv.DictReader(io.StringIO(text))]


def run_records(files, folder):
    """The point records of the run in `folder`: its .jsonl's, else its CSV's; [] where it has neither."""
    jsonl = one_of(files, folder, ".jsonl")
    if jsonl is not None:
        return [r for r in map(json.loads, jsonl.splitlines()[1:]) if "point_id" in r]
    table = one_of(files, folder, ".csv")
    return csv_records(table) if table is not None else []
