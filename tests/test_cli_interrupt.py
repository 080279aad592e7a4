"""Ctrl-C (issue 16, item 2): a long command stops, says what was and was not done, ends by
SIGINT (status 130 in a shell; provgraph.cli.main says why), and leaves the store as it was (a write is stored whole or not at all). Each test runs
the real command in a subprocess and sends it SIGINT while it works."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from provgraph.recorder import Recorder
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, lit
from provgraph.verify import verify_store

from .conftest import store_contents as _contents

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and ptys")


def _chunked_store(path: Path, chunks: int) -> None:
    """One source in ``chunks`` chunks: enough focus nodes for the shapes to take a while."""
    line = "Pumps are serviced every 6 months by certified staff.\n"
    text = line * chunks
    store = EmbeddedStore(path)
    rec = Recorder(store, label="interrupt", packages=[])
    snap = rec.snapshot(text.encode(), uri="file:///manual.txt", media_type="text/plain")
    ext = rec.extraction(snap, parser=("plain", "1"), text=text)
    rec.chunking(ext, chunker=("lines", "1"),
                 ranges=[(i * len(line), (i + 1) * len(line)) for i in range(chunks)])
    store.close()


def _interrupt_when(cmd: list[str], ready: str, *, tty: bool) -> tuple[int, str, str]:
    """Run ``provgraph`` with ``cmd``; send SIGINT once ``ready`` shows on its standard error
    (a terminal when ``tty``) or, with ``ready`` a path, once that file exists. Return the
    exit code, standard output and standard error."""
    master, slave = pty.openpty() if tty else (None, None)
    # SIGINT back to its default in the child: a test run started in the background of a
    # shell without job control ignores SIGINT, and an ignored signal stays ignored across
    # exec (Python then installs no KeyboardInterrupt handler)
    proc = subprocess.Popen([sys.executable, "-m", "provgraph", *cmd], stdout=subprocess.PIPE,
                            stderr=slave if tty else subprocess.PIPE, stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err = b""
    sent = False
    deadline = time.monotonic() + 120
    if tty:
        assert master is not None and slave is not None
        os.close(slave)
        while time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                err += chunk
            if not sent and ready.encode() in err:
                proc.send_signal(signal.SIGINT)
                sent = True
            if proc.poll() is not None and not r:
                break
        os.close(master)
    else:
        while not sent and proc.poll() is None and time.monotonic() < deadline:
            if Path(ready).exists():
                proc.send_signal(signal.SIGINT)
                sent = True
            time.sleep(0.01)
    out, rest = proc.communicate(timeout=120)
    err += rest or b""
    assert sent, f"the command ended before {ready!r} showed: {err.decode(errors='replace')}"
    return proc.returncode, out.decode(), err.decode(errors="replace")


def test_validate_stops_during_the_shapes_and_says_what_was_checked(tmp_path):
    path = tmp_path / "store"
    _chunked_store(path, 1500)
    before = _contents(path)
    store = EmbeddedStore(path, read_only=True)
    graphs = 1 + len(store.named_graphs())  # the default graph and each named graph
    store.close()
    code, out, err = _interrupt_when(["--store", str(path), "validate"], "SHACL shapes", tty=True)
    assert code == -signal.SIGINT, err
    assert "Traceback" not in err
    assert out == ""  # no report: the validation did not finish
    # the engine validates beside the PROV-CONSTRAINTS checks (issue 16, item 2): the
    # interrupt may come before, while or after they ran, and the sentence says which
    said = re.search(r"Interrupted: PROV-CONSTRAINTS were checked in (\d+) of (\d+|the) graph\(s\), "
                     r"the SHACL validation of their union was stopped before it finished; "
                     r"nothing was reported and the store was not changed \(validate only "
                     r"reads\)", err)
    assert said is not None, err
    assert int(said[1]) <= graphs and said[2] in (str(graphs), "the")
    assert _contents(path) == before


def test_import_stops_and_stores_nothing(tmp_path):
    path = tmp_path / "store"
    EmbeddedStore(path).close()
    before = _contents(path)
    n = 8000
    doc = {"prefix": {"ex": "http://example.org/"},
           "entity": {f"ex:e{i}": {"prov:label": f"entity {i}"} for i in range(n)},
           "activity": {f"ex:a{i}": {} for i in range(n // 4)},
           "wasGeneratedBy": {f"_:g{i}": {"prov:entity": f"ex:e{i}", "prov:activity": f"ex:a{i // 4}"}
                              for i in range(n)}}
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    code, out, err = _interrupt_when(["--store", str(path), "import", str(big)],
                                     str(path / "writer.json"), tty=False)
    assert code == -signal.SIGINT, err
    assert "Traceback" not in err
    assert f"Interrupted: nothing from {big} was stored" in err
    assert "imported" not in err
    assert _contents(path) == before


@pytest.mark.parametrize("fresh, held", [(True, False), (False, False), (False, True)],
                         ids=["new-store", "existing-store", "store-with-data"])
def test_import_of_nquads_stops_while_it_stores_and_keeps_nothing(tmp_path, fresh, held):
    """Ctrl-C while a streamed N-Quads import writes its batches: the journaled undo runs
    (a store that held nothing is cleared at once instead of statement by statement), the
    command says nothing was stored and ends by SIGINT within seconds, and the store is as
    it was; a store the import created is not re-created by the interrupt's own sentence.
    Into a store that held data (in urn:x:g0, which the import also writes, and in the
    default graph) the undo removes the statements one by one and the graphs the import
    created, so the store lists the same graphs, its ledger verifies, and the sentence
    says how many statements were removed again."""
    path = tmp_path / "store"
    if not fresh:
        store = EmbeddedStore(path)
        if held:
            store.add([(IRI(f"urn:x:h{i}"), IRI("urn:x:p"), lit(i), g)
                       for i in range(50) for g in (IRI("urn:x:g0"), None)])
        graphs = store.named_graphs()
        store.close()
        before = _contents(path)
    doc = tmp_path / "big.nq"
    entity = "http://www.w3.org/ns/prov#Entity"
    kind = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    doc.write_text("".join(f"<urn:x:s{i}> <{kind}> <{entity}> <urn:x:g{i % 7}> .\n"
                           f'<urn:x:s{i}> <http://www.w3.org/2000/01/rdf-schema#label> "e {i}" '
                           f"<urn:x:g{i % 7}> .\n" for i in range(60_000)))
    proc = subprocess.Popen([sys.executable, "-m", "provgraph", "--store", str(path), "import",
                             str(doc)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL,  # SIGINT not ignored (see above)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    journal = path / "journal.nq"
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        # two batches written (the journal lists them): the load is under way
        if journal.exists() and journal.stat().st_size > 2 * 10_000 * 80:
            break
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()[1].decode()
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err_bytes = proc.communicate(timeout=60)
    took, err = time.monotonic() - sent, err_bytes.decode(errors="replace")
    assert took < 10, f"{took:.1f} s from SIGINT to exit: {err}"
    assert proc.returncode == -signal.SIGINT, err
    assert "Traceback" not in err and "imported" not in err
    assert f"Interrupted: nothing from {doc} was stored" in err
    assert not journal.exists()
    if fresh:
        assert not path.exists()
    else:
        assert _contents(path) == before
        store = EmbeddedStore(path, read_only=True)
        assert store.named_graphs() == graphs
        store.close()
    if held:
        assert re.search(r"the \d+ statements written before the interrupt were removed "
                         "again", err), err
        report = verify_store(path)
        assert report.ok, report


def test_an_interrupted_undo_is_not_reported_as_stored_whole(tmp_path):
    """A second Ctrl-C during the journaled undo leaves the journal (the next write undoes
    it); the sentence said the import 'had been stored whole' since the store held more
    statements than before."""
    from provgraph.cli_support import _Ctx, _stored_since

    obj = _Ctx(str(tmp_path / "store"), False)
    store = obj.store(create=True)
    note = _stored_since(obj, len(store), "big.nq")
    store.add([("urn:x", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                "http://www.w3.org/ns/prov#Entity", None)])
    assert "stored whole" in note()
    store.unfinished = "import big.nq"
    said = note()
    assert said.startswith("the undo of import big.nq was interrupted too"), said
    assert "stored whole" not in said
    obj.close()


def test_a_long_undo_is_shown_in_place_of_the_interrupted_stage(monkeypatch):
    """On a terminal, an undo that runs longer than UNDO_NOTICE_SECONDS (0 here, so no
    test waits) is shown as the ``undo`` stage with its statement counts, and the spinner
    of the interrupted import is not shown beside it any more."""
    import io

    from provgraph import cli_support
    from provgraph.output import staged_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(cli_support, "UNDO_NOTICE_SECONDS", 0.0)
    store = EmbeddedStore()
    p = IRI("urn:x:p")
    store.add([(IRI("urn:x:held"), p, lit(0), IRI("urn:x:g"))])
    shown = []

    def spy(stage: str, done: int, total: int) -> None:
        shown.append((stage, done, total))
        show(stage, done, total)

    with pytest.raises(KeyboardInterrupt):
        with staged_progress({"import": "importing big.nq",
                              **cli_support._undo_stage("import", "big.nq")},
                             takes_over=("undo",)) as show:
            show("import", 0, 1)
            cli_support._show_undo(store, spy)
            with store.journaled("import big.nq"):
                store.add([(IRI(f"urn:x:s{i}"), p, lit(i), IRI(f"urn:x:g{i % 2}"))
                           for i in range(5000)])
                raise KeyboardInterrupt
    assert shown and shown[-1] == ("undo", 5000, 5000), shown
    frames = [f for f in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.getvalue()).split("\r")
              if f.strip()]  # each refresh starts with a carriage return
    assert "importing big.nq" in frames[0]
    assert "undoing the import of big.nq (Ctrl-C: finish it later)" in frames[-1]
    assert "importing" not in frames[-1], frames[-1]
    assert len(store) == 1 and store.undone == ("import big.nq", 5000)


def test_a_writer_open_says_on_a_terminal_which_stopped_write_it_undoes(tmp_path, monkeypatch):
    """A write command that first has to undo what a killed write left says so while it
    does (after UNDO_NOTICE_SECONDS, 0 here), then that it did; not on a pipe."""
    import io

    from provgraph import cli_support

    from .test_store_journal import _KILLED_WRITER

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    path = tmp_path / "store"
    EmbeddedStore(path).close()
    before = _contents(path)
    assert subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)]).returncode < 0
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(cli_support, "UNDO_NOTICE_SECONDS", 0.0)
    obj = cli_support._Ctx(str(path), False)
    obj.store(create=True)
    obj.close()
    said = err.getvalue().splitlines()
    assert said[0].startswith("note: undoing killed write (pid "), said
    assert said[0].endswith(", which a stopped process left unfinished in the store, before "
                            "this command runs (2000 statements removed so far)"), said
    assert said[1].startswith("note: undid killed write"), said
    assert _contents(path) == before
