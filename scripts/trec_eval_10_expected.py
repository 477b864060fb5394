"""Write the expected outputs of ``tests/data/trec_eval_10/`` with trec_eval 10.0.

Usage::

    python scripts/trec_eval_10_expected.py TREC_EVAL_BINARY

trec_eval 10.0 is built from its source (``tar xzf trec_eval-10.0.tar.gz &&
make -C trec_eval-10.0``). For every case of :data:`CASES` this runs the
trec_eval command(s) in ``tests/data/trec_eval_10/`` and writes their standard
output, concatenated, to ``NAME.te10``, and the table ``cases.tsv`` (name,
trec_eval's exit code, the irpref arguments, the trec_eval commands) that
``tests/test_trec_eval_10.py`` reads. Where trec_eval 10.0 is wrong the
trec_eval command is run on a repaired input (the README of the folder says
how); elsewhere it is irpref's own command line.
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
