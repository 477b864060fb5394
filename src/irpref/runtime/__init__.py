"""Runtime policy, one module per resource: threads (:mod:`~irpref.runtime.threads`),
memory (:mod:`~irpref.runtime.memory`), progress bars (:mod:`~irpref.runtime.progress`),
blocks of run pairs as units of work (:mod:`~irpref.runtime.pairblocks`) and the
optional C extensions (:mod:`~irpref.runtime.native`)."""
