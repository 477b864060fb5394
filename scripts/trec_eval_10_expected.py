"""Write the expected outputs of ``tests/data/trec_eval_10/`` with trec_eval 10.0.

Usage::

    python scripts/trec_eval_10_expected.py TREC_EVAL_BINARY

trec_eval 10.0 is built from its source (``tar xzf trec_eval-10.0.tar.gz &&
make -C trec_eval-10.0``). For every case of :data:`CASES` this runs the
trec_eval command(s) in ``tests/data/trec_eval_10/`` and writes their standard
output, concatenated, to ``NAME.te10``, the table ``cases.tsv`` (name,
trec_eval's exit code, the irpref arguments, the trec_eval commands) that
``tests/test_trec_eval_10.py`` reads, and the folder's README (every command).
Where trec_eval 10.0 is wrong the trec_eval command is run on a repaired input
(the README says how); elsewhere it is irpref's own command line.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "trec_eval_10"
TE = "../trec_eval/"

# name -> (irpref arguments, trec_eval commands whose outputs are concatenated, or None
# for the same arguments)
CASES: dict[str, tuple[str, list[str] | None]] = {
    # fixes: irpref's output is trec_eval 10.0's on the same command line
    "J_nan_per_query": ("-J -q -m iprec_at_recall -m 11pt_avg small.qrels small.run", None),
    "Z_gm": ("-q -Z gm.z -m gm_map -m gm_bpref -m map gm.qrels gm.run", None),
    "Zc_gm": ("-c -Z gm.z -m gm_map -m gm_bpref gm.qrels small.run", None),
    "rbp_resid_p": (f"-q -m rbp_resid.p=0.8 -m rbp_resid {TE}qrels.test {TE}results.test",
                    None),
    "c_missing_params": ("-q -c -m num_ret -m utility.2,-1,0,0 -m utility -m relstring.5 "
                         "-m relstring -m unj.5 -m rbp_resid.p=0.8 -m rbp_resid -m P.5 "
                         f"{TE}qrels.test {TE}results.trunc", None),
    "cJ_missing": ("-q -c -J -m iprec_at_recall -m num_ret -m relstring.3 "
                   f"{TE}qrels.test {TE}results.trunc", None),
    "missing_no_c": (f"-q -m map -m P.5 {TE}qrels.test {TE}results.trunc", None),
    "l0": (f"-q -l 0 -m all_trec {TE}qrels.rel_level {TE}results.test", None),
    "l0_Rndcg": ("-q -l 0 -m Rndcg -m ndcg -m num_rel zero.qrels zero.run", None),
    "M0": (f"-q -M 0 -m all_trec {TE}qrels.test {TE}results.test", None),
    "cM0": (f"-c -M 0 -m official -m relstring.3 {TE}qrels.test {TE}results.trunc", None),
    "D_query": (f"-q -D 0.302 -m official {TE}qrels.test {TE}results.test", None),
    "cD_query": (f"-c -D 0.302 -m map -m gm_map -m num_q -m num_rel -m P.5 {TE}qrels.test "
                 f"{TE}results.test", None),
    "N_utility": (f"-N 1000 -m utility.1,-1,-1,1 {TE}qrels.test {TE}results.test", None),
    "ndcg_gain_unjudged_level": ("-q -m ndcg.4=4.5 -m ndcg_cut.3 wide.qrels wide.run", None),
    "qrels_jg_num_q": (f"-R qrels_jg -m num_q -m runid {TE}qrels_jg.test {TE}results.test",
                       None),
    # trec_eval 10.0 is wrong: its output on a repaired input (README)
    "comments": ("-q -m map -m num_rel comments.qrels comments.run",
                 ["-q -m map -m num_rel comments.fixed.qrels comments.run"]),
    "negative_only": ("-q -m map -m ndcg -m num_rel -m P.2 negative.qrels negative.run",
                      ["-q -m map -m ndcg -m num_rel -m P.2 negative.fixed.qrels negative.run"]),
    "Z_last_query": (f"-q -Z zscore301.z -m map -m P.5 {TE}qrels.test {TE}results.test",
                     [f"-q -Z zscore301.fixed.z -m map -m P.5 {TE}qrels.test "
                      f"{TE}results.test"]),
    "rbp_after_G": (f"-m G -m rbp {TE}qrels.rel_level {TE}results.test",
                    [f"-m G {TE}qrels.rel_level {TE}results.test",
                     f"-m rbp {TE}qrels.rel_level {TE}results.test"]),
    "dcg_with_ndcg_gains": (f"-m dcg -m ideal_dcg -m ndcg.1=3,2=9 {TE}qrels.rel_level "
                            f"{TE}results.test",
                            [f"-m dcg -m ideal_dcg {TE}qrels.rel_level {TE}results.test",
                             f"-m ndcg.1=3,2=9 {TE}qrels.rel_level {TE}results.test"]),
    "11pt_unsorted": (f"-q -m 11pt_avg.1.0,.5,0 {TE}qrels.test {TE}results.test",
                      [f"-q -m 11pt_avg.0,.5,1.0 {TE}qrels.test {TE}results.test"]),
}


README = """# trec_eval 10.0's own output (`tests/data/trec_eval_10/`)

Expected outputs of `irpref trec_eval`, each printed by trec_eval 10.0 itself:
built from its source (usnistgov/trec_eval at "Updating CHANGELOG for version
10.0", f425365; `tar xzf trec_eval-10.0.tar.gz && make -C trec_eval-10.0`) and
run in this folder by `python scripts/trec_eval_10_expected.py
path/to/trec_eval-10.0/trec_eval`, which wrote every `*.te10` file (standard
output; two commands' outputs concatenated where two are listed), this README
and `cases.tsv` (name, trec_eval's exit code, irpref's arguments, the trec_eval
commands). `tests/test_trec_eval_10.py` runs irpref on each case's arguments
(`cases.tsv`) and compares byte for byte. Paths `../trec_eval/` are trec_eval's
own test files (see `../README.md`).

Inputs made here (small hand-written files): `small.*` (the smallest `-J`
case), `gm.*` (`-Z` of gm_map and gm_bpref), `zero.*` (a query judged only
grade 0, `-l 0`), `wide.*` (grades 0-3 and 12: ndcg gains of a level no query
judges), `comments.*`, `negative.*`, `negative.prefs*`, `zscore301.*`
(`zscore301.z` is the 301 lines of `../trec_eval/zscores_file`).

Where trec_eval 10.0 is wrong (the README's *Drop-in trec_eval* section gives
the source lines), the trec_eval command runs on a *repaired* input whose
meaning is the same and on which the bug cannot fire, and irpref's output on the
original input must equal it:

- `comments.fixed.qrels`: `comments.qrels` without its `#` lines (two in a row
  and one at the end: trec_eval 10.0 reads the second as a query named `#` and
  crashes on the last);
- `negative.fixed.qrels`: `negative.qrels` plus a grade-0 document that no run
  retrieves for each query judged only negatively (queries 1 and 3; with no
  relevant document no measure reads it): on the original trec_eval exits 4;
- `zscore301.fixed.z`: `zscore301.z` plus sentinel lines (`301 ~~~~ 0 1`,
  `~~~~ ~~~~ 0 1`) that sort after every query and measure, so its binary
  searches stay in bounds: on the original it crashes at query 302;
- `rbp_after_G`, `dcg_with_ndcg_gains`: the measures asked separately (rbp
  alone; dcg and ideal_dcg without ndcg's custom gains), outputs concatenated;
- `11pt_unsorted`: the recall points given sorted (the test reads irpref's
  line name `11pt_avg_1.0,.5,0` as trec_eval's `11pt_avg_0,.5,1.0`).

`negative.prefs` and `negative.prefs.run` have no trec_eval output (trec_eval
reads past an array there); the test derives irpref's value by hand.

| expected output | trec_eval exit | command (in this folder) |
|---|---:|---|
{table}
"""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = str(Path(argv[0]).resolve())
    rows = []
    for name, (args, te_commands) in CASES.items():
        out, codes = b"", []
        for command in te_commands or [args]:
            proc = subprocess.run([binary, *shlex.split(command)], cwd=DATA,
                                  capture_output=True)
            out += proc.stdout
            codes.append(proc.returncode)
        (DATA / f"{name}.te10").write_bytes(out)
        rows.append("\t".join([name, str(max(codes, key=abs)), args,
                               " ; ".join(te_commands or [args])]))
        print(f"{name}: exit {codes}, {len(out.splitlines())} lines")
    (DATA / "cases.tsv").write_text("name\texit\tirpref\ttrec_eval\n" + "\n".join(rows) + "\n")
    table = [f"| `{r.split(chr(9))[0]}.te10` | {r.split(chr(9))[1]} | "
             + "<br>".join(f"`trec_eval {c}`" for c in r.split(chr(9))[3].split(" ; ")) + " |"
             for r in rows]
    (DATA / "README.md").write_text(README.replace("{table}", "\n".join(table)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
