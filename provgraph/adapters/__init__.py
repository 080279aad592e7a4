"""Framework adapters: provenance recorded from the frameworks RAG applications are built on.

One module per framework; each imports its framework only when it is used, so
``import provgraph`` never imports one, and each is an optional extra
(``pip install 'provgraph[llamaindex]'``). Adapters record only through
:class:`provgraph.Recorder` (issue 14).

* :mod:`provgraph.adapters.llamaindex`: LlamaIndex (``llama-index-core`` 0.14),
  an event and span handler on its instrumentation dispatcher.
* :mod:`provgraph.adapters.langchain`: LangChain (``langchain-core`` 1.8), a callback
  handler added to every run through langchain-core's configure hook.
* :mod:`provgraph.adapters.haystack`: Haystack (``haystack-ai`` 2.31), a tracer
  (``haystack.tracing``) with content tracing on in its own spans.

What is the same for every framework (failure surfacing, re-ingested snapshots,
prompt segments, claims and citations) is in :mod:`provgraph.adapters._common`.
"""
