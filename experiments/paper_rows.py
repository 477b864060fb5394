"""The papers' printed numbers, one table per paper, keyed by the collection
folder a user would name with ``--collection``:

    PAPERS[paper][table][collection][measure] -> the number as printed (a string,
    so that its printed precision is kept: "87.30" is compared at 2 digits).

Transcribed from the text of the five papers; ``SOURCES`` names each table
or figure and its section. The text copies carry no page numbers, so pages
are not given. ``REL`` says, in one place, which relevance level each paper
used for each collection (and why we believe so). ``REASONS`` holds the known
reason for each number irpref does not reproduce; any other difference is
reported as "unexplained".

Collection folders (``$IRPREF_DATA/NAME/qrels.txt`` and ``NAME/runs/*.gz``):
``COLLECTIONS`` maps each name to the TREC track and year it holds.
"""

from __future__ import annotations

from decimal import Decimal

COLLECTIONS = {
    "dl19-passage": "TREC 2019 Deep Learning track, passage ranking (deep-pass 2019)",
    "dl20-passage": "TREC 2020 Deep Learning track, passage ranking (deep-pass 2020)",
    "dl21-passage": "TREC 2021 Deep Learning track, passage ranking (deep-pass 2021)",
    "dl19-docs": "TREC 2019 Deep Learning track, document ranking (deep-docs 2019)",
    "dl20-docs": "TREC 2020 Deep Learning track, document ranking (deep-docs 2020)",
    "dl21-docs": "TREC 2021 Deep Learning track, document ranking (deep-docs 2021)",
    "robust04": "TREC 2004 Robust track (robust 2004; RPP: 'robust')",
    "robust03": "TREC 2003 Robust track (in none of the papers)",
    "core17": "TREC 2017 Common Core track",
    "core18": "TREC 2018 Common Core track",
    "web09": "TREC 2009 Web track, ad hoc task",
    "web10": "TREC 2010 Web track, ad hoc task",
    "web11": "TREC 2011 Web track, ad hoc task",
    "web12": "TREC 2012 Web track, ad hoc task",
    "web13": "TREC 2013 Web track, ad hoc task",
    "web14": "TREC 2014 Web track, ad hoc task",
    "legal06": "TREC 2006 Legal track",
    "legal07": "TREC 2007 Legal track",
    "ml-1m": "MovieLens 1M recommender runs (Valcarce et al.)",
    "librarything": "LibraryThing recommender runs (Valcarce et al.)",
    "beeradvocate": "BeerAdvocate recommender runs (Valcarce et al.)",
}


def _rows(columns: str, rows: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{collection: {column: printed number}}`` from a header of column names
    (separated by ``|``) and one line of printed numbers per collection."""
    names = columns.split("|")
    out = {}
    for collection, line in rows.items():
        values = line.split()
        if len(values) != len(names):
            raise ValueError(f"{collection}: {len(values)} numbers for {len(names)} columns")
        out[collection] = dict(zip(names, values))
    return out


# lexiprecision Table 2 prints one column "rrLP, sgnLP": both measures get it
_LP_TIES = {
    "robust04": "0.39 0.39 44.22", "core17": "0.23 0.23 48.50", "core18": "1.72 1.72 31.43",
    "web09": "4.93 4.93 15.13", "web10": "0.61 0.61 25.85", "web11": "1.02 1.02 41.99",
    "web12": "0.34 0.34 34.01", "web13": "0.83 0.83 31.09", "web14": "0.64 0.64 41.93",
    "dl19-docs": "1.06 1.06 68.45", "dl20-docs": "2.43 2.43 73.99",
    "dl21-docs": "0.23 0.23 80.84", "dl19-passage": "2.63 2.63 56.89",
    "dl20-passage": "2.58 2.58 50.30", "dl21-passage": "1.32 1.32 47.41",
    "ml-1m": "3.38 3.38 21.39", "librarything": "16.48 16.48 25.85",
    "beeradvocate": "41.73 41.73 45.72",
}

LEXIPRECISION = {
    # sgnLP of p_2:m and δRR_2 (RR of p_2:m) agreeing with the masked δRR_1, %
    "Table 1": _rows("sgnLP|RR", {
        "robust04": "85.78 83.44", "core17": "89.23 87.30", "core18": "88.01 86.58",
        "web09": "85.87 84.79", "web10": "87.29 85.41", "web11": "88.91 87.54",
        "web12": "87.22 85.45", "web13": "86.51 84.45", "web14": "88.02 85.82",
        "dl19-docs": "86.56 83.10", "dl20-docs": "83.73 79.34", "dl21-docs": "92.41 89.78",
        "dl19-passage": "90.45 88.87", "dl20-passage": "92.86 91.08",
        "dl21-passage": "91.97 90.14", "ml-1m": "78.90 77.56", "librarything": "66.50 66.08",
        "beeradvocate": "58.84 58.25",
    }),
    "Table 2": _rows("rrLP|sgnLP|RR", _LP_TIES),  # % of (run pair, request) tied
    "Table 3a": _rows("rrLP|sgnLP|RR", {  # % of run pairs p < 0.05, Tukey's HSD
        "robust04": "27.42 27.34 23.55", "core17": "17.41 14.67 15.03",
        "core18": "28.60 31.42 27.39", "web09": "23.85 28.28 24.11",
        "web10": "18.95 13.51 18.35", "web11": "14.70 10.22 13.83",
        "web12": "13.39 11.61 13.21", "web13": "5.85 5.79 6.07", "web14": "20.00 11.72 18.85",
        "dl19-docs": "8.25 19.20 6.97", "dl20-docs": "5.26 3.47 2.88",
        "dl21-docs": "6.39 11.19 4.48", "dl19-passage": "16.52 18.47 13.21",
        "dl20-passage": "37.46 40.91 28.35", "dl21-passage": "24.07 24.78 20.38",
        "ml-1m": "81.43 90.95 80.00", "librarything": "93.81 96.67 93.81",
        "beeradvocate": "92.38 96.19 90.95",
    }),
    # % of run pairs p < 0.05, paired test (t; sign test for sgnLP). The caption says
    # "with Bonferroni correction"; the numbers are those of Holm's (Bonferroni gives
    # rrLP 14.86, RR 9.91 on deep-pass 2019), the correction the lexirecall paper names.
    "Table 3b": _rows("rrLP|sgnLP|RR", {
        "robust04": "26.22 27.36 21.45", "core17": "16.22 11.35 11.53",
        "core18": "29.30 31.73 27.03", "web09": "23.76 25.18 23.49",
        "web10": "18.55 9.27 17.74", "web11": "12.30 6.94 9.73",
        "web12": "11.97 10.11 11.35", "web13": "4.75 4.64 4.32", "web14": "15.86 7.13 14.02",
        "dl19-docs": "11.66 16.36 5.69", "dl20-docs": "2.33 1.79 0.60",
        "dl21-docs": "3.73 9.14 3.03", "dl19-passage": "15.02 17.42 10.36",
        "dl20-passage": "39.04 39.45 28.00", "dl21-passage": "23.55 20.99 16.79",
        "ml-1m": "90.00 92.38 90.48", "librarything": "97.14 97.62 96.67",
        "beeradvocate": "94.76 96.67 94.76",
    }),
}

_RPP_COLS = "RPP|RPP(p=dcg)|RPP(p=inverse)|AP|nDCG|RR"  # RPP, dcgRPP, invRPP, AP, NDCG, RR
_ST_COLS = "ST-RPP|ST-R|ERR-IA|MAP-IA"

RPP = {
    "Table 1": _rows("requests|runs|rel/request|subtopics/request", {
        "core17": "50 75 180.04 0", "core18": "50 72 78.96 0", "dl19-docs": "43 38 153.42 0",
        "dl20-docs": "45 64 39.27 0", "dl19-passage": "43 37 95.40 0",
        "dl20-passage": "54 59 66.78 0", "web09": "50 48 129.98 4.98",
        "web10": "48 32 187.63 4.17", "web11": "50 62 167.56 3.36",
        "web12": "50 48 187.36 3.90", "web13": "50 61 182.42 3.18",
        "web14": "50 30 212.58 3.12", "robust04": "249 110 69.93 0",
        "ml-1m": "6005 21 18.87 0", "librarything": "7227 21 13.15 0",
        "beeradvocate": "17564 21 13.66 0",
    }),
    # Kendall's τ between run orderings, averaged over all datasets (no per-collection row)
    "Table 2a": _rows("RR/RPP(p=inverse)|RR/RPP|RR/RPP(p=dcg)|RR/AP|RR/nDCG|"
                      "RPP(p=inverse)/RPP|RPP(p=inverse)/RPP(p=dcg)|RPP(p=inverse)/AP|"
                      "RPP(p=inverse)/nDCG|RPP/RPP(p=dcg)|RPP/AP|RPP/nDCG|RPP(p=dcg)/AP|"
                      "RPP(p=dcg)/nDCG|AP/nDCG", {
        "mean over datasets": "0.61 0.45 0.49 0.49 0.50 0.79 0.85 0.82 0.80 0.93 0.86 0.87 "
                              "0.88 0.88 0.89",
    }),
    "Table 3a": _rows(_RPP_COLS, {  # % of run pairs p < 0.05, randomized Tukey HSD
        "core17": "49.91 49.44 40.76 36.54 39.21 14.67",
        "core18": "52.35 49.22 42.33 35.29 34.66 27.97",
        "dl19-docs": "42.53 40.83 30.01 33.57 41.11 6.97",
        "dl20-docs": "18.85 19.35 17.31 17.71 18.06 2.88",
        "dl19-passage": "42.34 42.19 36.34 30.03 26.73 6.76",
        "dl20-passage": "45.70 47.34 45.82 30.10 20.87 22.21",
        "web09": "32.00 33.69 35.02 18.35 31.56 23.23",
        "web10": "43.75 39.31 28.43 27.82 37.50 18.15",
        "web11": "45.16 43.36 34.06 31.62 40.61 14.17",
        "web12": "41.05 36.44 23.49 26.06 32.09 12.77",
        "web13": "48.42 44.10 22.30 29.02 41.53 5.96",
        "web14": "48.74 48.28 36.55 44.14 49.89 18.85",
        "robust04": "63.47 60.52 51.08 52.89 54.53 22.84",
        "ml-1m": "94.29 94.29 92.38 88.57 88.57 83.81",
        "librarything": "96.67 97.14 97.62 95.24 95.71 93.33",
        "beeradvocate": "94.76 94.76 95.71 93.33 94.29 91.90",
    }),
    "Table 3b": _rows(_ST_COLS, {
        "web09": "29.43 28.99 24.20 17.11", "web10": "40.12 28.02 22.18 20.77",
        "web11": "46.11 17.93 16.45 26.12", "web12": "44.15 12.15 16.58 25.09",
        "web13": "49.89 4.48 5.52 24.04", "web14": "50.11 12.87 17.93 40.46",
    }),
    "Table 4a": _rows(_RPP_COLS, {  # % of run pairs p < 0.05, Student's t, Bonferroni
        "core17": "54.13 53.66 45.26 34.13 36.54 9.55",
        "core18": "55.59 53.99 48.63 35.84 40.18 21.91",
        "dl19-docs": "49.64 44.81 37.27 28.45 36.13 4.84",
        "dl20-docs": "18.01 19.15 17.36 14.34 15.58 0.50",
        "dl19-passage": "43.99 45.05 42.34 24.17 23.72 1.65",
        "dl20-passage": "51.49 54.59 55.93 34.83 33.31 18.35",
        "web09": "34.22 37.06 36.70 15.25 34.04 19.50",
        "web10": "52.22 45.16 30.04 22.58 31.25 13.71",
        "web11": "54.42 49.60 35.64 32.36 40.93 6.98",
        "web12": "44.59 39.98 24.47 22.25 32.45 10.64",
        "web13": "59.24 51.26 23.01 25.52 40.82 2.51",
        "web14": "59.31 56.09 38.16 51.49 62.30 13.10",
        "robust04": "65.00 62.29 54.21 44.82 49.34 16.21",
        "ml-1m": "96.19 95.71 96.19 91.43 94.29 85.71",
        "librarything": "98.57 98.10 98.57 94.29 96.67 92.38",
        "beeradvocate": "95.24 95.24 95.71 91.43 95.71 91.90",
    }),
    "Table 4b": _rows(_ST_COLS, {
        "web09": "33.24 25.62 19.06 14.36", "web10": "49.40 16.94 14.72 11.69",
        "web11": "56.32 8.99 9.52 23.64", "web12": "43.71 7.98 12.06 14.45",
        "web13": "60.77 2.35 2.90 19.45", "web14": "63.68 9.89 12.18 46.44",
    }),
    # §6.1 text on Fig. 5 (sampled Robust runs): Pearson r of offline interleaving with RPP
    "Fig. 5": _rows("r(OI uniform, RPP)|r(OI dcg, RPP)|sa(RPP, RR)|sa(RR, AP)|sa(RR, nDCG)", {
        "robust04": "0.98 0.94 0.50 0.56 0.58",
    }),
    # §3 text on Fig. 2 right: "for roughly 93% of the samples, f_i != f'_i"
    "Fig. 2": _rows("% f_i != f'_i", {"dl19-docs": "93"}),
}

LEXIRECALL = {
    "Table 5": _rows("requests|runs|rel/request|docs/request", {
        "legal06": "39 34 110.85 4835.07", "legal07": "43 68 101.023 22240.30",
        "core17": "50 75 180.04 8853.11", "core18": "50 72 78.96 7102.61",
        "dl19-docs": "43 38 153.42 623.77", "dl20-docs": "45 64 39.27 99.55",
        "dl21-docs": "57 66 189.63 98.83", "dl19-passage": "43 37 95.40 892.51",
        "dl20-passage": "54 59 66.78 978.01", "dl21-passage": "53 63 191.96 99.95",
        "web09": "50 48 129.98 925.31", "web10": "48 32 187.63 7013.21",
        "web11": "50 61 167.56 8325.07", "web12": "50 48 187.36 6719.53",
        "web13": "50 61 182.42 7174.38", "web14": "50 30 212.58 6313.98",
        "robust04": "249 110 69.93 913.82",
    }),
    # simulated random rankings (no collection): Table 2 m ~ U(5, 50); tied, then agreement
    "Table 2": _rows("tied|TSE|R@1000|Rprec|AP|nDCG|random", {
        "n=1000": "0.012 1.000 0.000 0.285 0.541 0.535 0.492",
        "n=10000": "0.001 1.000 0.420 0.077 0.552 0.549 0.497",
        "n=100000": "0.000 1.000 0.179 0.008 0.554 0.555 0.498",
        "n=1000000": "0.000 1.000 0.026 0.001 0.547 0.554 0.499",
    }),
    "Table 3": _rows("TSE|R@1000|Rprec|AP|sgnLR", {  # Pr(tie), m = 10
        "n=1000": "0.005 1.000 0.825 0.000 0.000", "n=10000": "0.001 0.313 0.980 0.000 0.000",
        "n=100000": "0.000 0.826 0.998 0.000 0.000",
        "n=1000000": "0.000 0.980 1.000 0.000 0.000",
    }),
    "Table 4": _rows("TSE|R@1000|Rprec|AP|sgnLR", {  # Pr(tie), n = 10^6
        "m=1": "0.000 0.998 1.000 0.000 0.000", "m=5": "0.000 0.990 1.000 0.000 0.000",
        "m=10": "0.000 0.981 1.000 0.000 0.000", "m=25": "0.000 0.952 0.999 0.000 0.000",
        "m=50": "0.000 0.907 0.995 0.000 0.000",
    }),
}

ASL = {
    # best BM25 and best neural system of the 2020 DL tracks, and the RRIE between them
    "Table 1": _rows("P@20 BM25|P@20 neural|P@20 RRIE %|ASL@g1-10 BM25|ASL@g1-10 neural|"
                     "ASL@g1-10 RRIE %|MAP BM25|MAP neural|MAP RRIE %|ASL BM25|ASL neural|"
                     "ASL RRIE %", {
        "dl20-docs": "0.456 0.594 25 14 5 69 0.401 0.543 24 39 27 32",
        "dl20-passage": "0.517 0.706 39 51 6 90 0.400 0.572 29 264 215 19",
    }),
    # (mean - sd) and (mean + sd) over 76 TREC tracks; columns read as ΔSort %, τ, ΔValue x
    "Table 2": _rows("atomize P|harmonic within queries|harmonic across queries|cumulative", {
        "ΔSort % low": "26 37 29 26", "ΔSort % high": "60 77 78 60",
        "tau low": "0.7 0.4 0.4 0.6", "tau high": "0.9 0.8 0.9 0.9",
        "ΔValue x low": "0.3 0.03 0.1 0.004", "ΔValue x high": "0.6 0.4 0.9 0.06",
    }),
}

PAPERS = {"lexiprecision": LEXIPRECISION, "rpp": RPP, "lexirecall": LEXIRECALL, "asl": ASL}

SOURCES = {
    ("lexiprecision", "Table 1"): "Diaz 2023 (lexiprecision), Table 1, §5.1",
    ("lexiprecision", "Table 2"): "Diaz 2023 (lexiprecision), Table 2, §5.2",
    ("lexiprecision", "Table 3a"): "Diaz 2023 (lexiprecision), Table 3(a) Tukey's HSD, §5.2",
    ("lexiprecision", "Table 3b"): ("Diaz 2023 (lexiprecision), Table 3(b) paired "
                                       "test, §5.2"),
    ("rpp", "Table 1"): "Diaz & Ferraro 2022 (RPP), Table 1, §5.1",
    ("rpp", "Table 2a"): "Diaz & Ferraro 2022 (RPP), Table 2(a), §6.1",
    ("rpp", "Table 3a"): "Diaz & Ferraro 2022 (RPP), Table 3(a) HSD, §6.3",
    ("rpp", "Table 3b"): "Diaz & Ferraro 2022 (RPP), Table 3(b) HSD subtopics, §6.3",
    ("rpp", "Table 4a"): "Diaz & Ferraro 2022 (RPP), Table 4(a) t + Bonferroni, §6.3",
    ("rpp", "Table 4b"): "Diaz & Ferraro 2022 (RPP), Table 4(b) t subtopics, §6.3",
    ("rpp", "Fig. 5"): "Diaz & Ferraro 2022 (RPP), Fig. 5, text of §6.1",
    ("rpp", "Fig. 2"): "Diaz & Ferraro 2022 (RPP), Fig. 2 right, text of §3",
    ("lexirecall", "Table 2"): "Diaz & Mitra 2023 (lexirecall), Table 2, §4.3",
    ("lexirecall", "Table 3"): "Diaz & Mitra 2023 (lexirecall), Table 3, §5.3",
    ("lexirecall", "Table 4"): "Diaz & Mitra 2023 (lexirecall), Table 4, §5.3",
    ("lexirecall", "Table 5"): "Diaz & Mitra 2023 (lexirecall), Table 5, §6.1.1",
    ("asl", "Table 1"): "Alex, Hall & Metzler (ASL), Table 1, §4.3",
    ("asl", "Table 2"): "Alex, Hall & Metzler (ASL), Table 2, §4.4",
}

# The relevance level (grade >= REL counts as relevant) each paper used per
# collection. DL passage, RPP and lexirecall: grade >= 1, because their dataset
# tables (RPP Table 1, lexirecall Table 5) count 95.40 relevant per request on
# deep-pass 2019, which is grade >= 1 (58.16 at grade >= 2). Lexiprecision:
# grade >= 2 on DL passage (its Table 2 row deep-pass 2019 reproduces there
# and not at grade >= 1; its Table 1 row reproduces at grade >= 1, see REASONS).
# Elsewhere the track's own binary level; the ASL paper does not say its level.
TRACK_REL = {"dl19-passage": 2, "dl20-passage": 2, "dl21-passage": 2}  # others: 1
REL = {
    "lexiprecision": {"dl19-passage": 2, "dl20-passage": 2, "dl21-passage": 2},
    "rpp": {"dl19-passage": 1, "dl20-passage": 1, "dl21-passage": 1},
    "lexirecall": {"dl19-passage": 1, "dl20-passage": 1, "dl21-passage": 1},
    "asl": {"dl19-passage": 2, "dl20-passage": 2, "dl21-passage": 2},
}

_HSD_LP = ("unexplained (the paired column, Table 3b, reproduces exactly at the same grade; "
           "RPP Table 3a's HSD RR at grade >= 1 is 6.76, reproduced)")

# Why a number differs, when known: (paper, table, collection, measure) -> reason
REASONS = {
    ("lexiprecision", "Table 1", "dl19-passage", "sgnLP"):
        "at grade >= 2; the paper's number is irpref's at grade >= 1",
    ("lexiprecision", "Table 1", "dl19-passage", "RR"):
        "at grade >= 2; the paper's number is irpref's at grade >= 1",
    ("lexiprecision", "Table 3a", "dl19-passage", "rrLP"): _HSD_LP,
    ("lexiprecision", "Table 3a", "dl19-passage", "sgnLP"): _HSD_LP,
    ("lexiprecision", "Table 3a", "dl19-passage", "RR"): _HSD_LP,
    ("rpp", "Table 4a", "dl19-passage", "AP"):
        "unexplained (the same AP matches Table 3 under HSD)",
    ("rpp", "Table 4a", "dl19-passage", "nDCG"):
        "unexplained (the same nDCG matches Table 3 under HSD)",
    ("rpp", "Table 4a", "dl19-passage", "RR"):
        "unexplained (the same RR matches Table 3 under HSD)",
    ("rpp", "Table 3a", "dl19-passage", "RPP"): "unexplained: 4 of 666 pairs, not "
        "permutation noise (irpref finds 278 pairs at seeds 0, 1, 2 and 3)",
    ("lexirecall", "Table 3", "n=1000", "Rprec"):
        "the closed form 0.82566 rounds to 0.826 (0.825 if truncated)",
    ("lexirecall", "Table 4", "m=10", "R@1000"):
        "the closed form is 0.98029; the paper's own Table 3 prints 0.980 for this cell",
}


def rel(paper: str, collection: str) -> int:
    """The relevance level ``paper`` used for ``collection`` (see ``REL``); for a
    collection it does not report, the track's binary level (1 unless listed)."""
    return REL[paper].get(collection, TRACK_REL.get(collection, 1))


def row(paper: str, table: str, collection: str) -> dict[str, str] | None:
    """The paper's printed row for ``collection``, or None when it reports none."""
    return PAPERS[paper][table].get(collection)


def source(paper: str, table: str) -> str:
    return SOURCES[paper, table]


def reason(paper: str, table: str, collection: str, measure: str) -> str | None:
    return REASONS.get((paper, table, collection, measure))


def printed(text: str) -> tuple[float, int]:
    """A printed number and its number of decimals: ``"87.30"`` -> (87.3, 2)."""
    d = Decimal(text)
    return float(d), max(0, -d.as_tuple().exponent)
