"""Ed25519 signatures over bundle digests and ledger checkpoints (issue 20).

A digest proves that content is unchanged since it was computed; anyone can compute a
new one. A signature (Ed25519, RFC 8032, through the ``cryptography`` package) also
proves *who* computed it: only the holder of the private key can make one that the
public key accepts. Two things are signed:

* **Bundles.** ``provgraph export --claim|--run ... --sign-key KEY`` adds
  ``pg:signingKey`` (the key id) and ``pg:signature`` to the bundle's description; the
  signature is over :func:`bundle_message` (the bundle IRI, its ``pg:sha256`` digest and
  the key id). Neither statement is covered by the digest, so an unsigned bundle's digest
  is what it always was. ``provgraph verify-bundle --key PUB`` checks the signature as
  well as the digest.
* **Ledger checkpoints.** ``provgraph checkpoint --sign-key KEY`` writes a small receipt
  (:class:`Checkpoint`, JSON): the number and SHA-256 of the ledger's last line, the
  time, the key id and a signature over them. An auditor keeps it; later
  ``provgraph verify --checkpoint RECEIPT --key PUB`` proves that the ledger still holds
  that line with that hash, that is, nothing up to it was rewritten since.

Keys: ``provgraph keygen FILE`` writes a PKCS #8 PEM private key (mode 0600) and
``FILE.pub`` (SubjectPublicKeyInfo PEM). A private key is read from a file named by an
option, or from ``$PROVGRAPH_SIGNING_KEY`` (a file name, or the PEM text itself), never
from a command-line value. A key id is the SHA-256 (hex) of the 32 raw public-key bytes.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import ProvgraphError

__all__ = ["ENV_KEY", "CHECKPOINT_ENV", "periodic_checkpoints", "SignatureError", "Checkpoint", "generate_key", "load_private_key",
           "load_public_key", "looks_like_key_material", "key_id", "bundle_message", "sign_bundle", "check_bundle",
           "make_checkpoint", "write_checkpoint", "read_checkpoint", "check_checkpoint"]

ENV_KEY = "PROVGRAPH_SIGNING_KEY"
"""Environment variable holding the private signing key: a file name or the PEM text."""
CHECKPOINT_ENV = "PROVGRAPH_CHECKPOINT_EVERY"
"""Environment variable: a writer on disk signs a checkpoint every this many ledger lines
with the key of :data:`ENV_KEY` (:func:`periodic_checkpoints`)."""


class SignatureError(ProvgraphError):
    """A key or a signed file cannot be read, or a key is of the wrong kind."""


def _crypto() -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return serialization, ed25519


def generate_key(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new Ed25519 private key to ``path`` (PKCS #8 PEM, unencrypted, mode 0600)
    and its public key to ``path`` + ``.pub``.

    Returns:
        ``(private key file, public key file)``.

    Raises:
        SignatureError: either file exists (a key is never overwritten).
    """
    serialization, ed25519 = _crypto()
    priv_path = Path(path)
    pub_path = Path(str(priv_path) + ".pub")
    for p in (priv_path, pub_path):
        if p.exists():
            raise SignatureError(f"{p} exists; a key is never overwritten: choose another name")
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(priv_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    pub_path.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return priv_path, pub_path


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{40,}")


def looks_like_key_material(value: str) -> bool:
    """Whether ``value``, given where a key file's name belongs, may be a key itself, so
    that an error must not print it: it holds ``-----`` (PEM armour), a line break, a run
    of 40 or more base64 characters (a PEM body line is 64), or is longer than a file name
    can be (255). A long path of letters and slashes alone also counts: not printing a
    name costs less than printing a secret.

    >>> [looks_like_key_material(v) for v in ("signing.pem", "keys/k.pem.pub",
    ...     "-----BEGIN PRIVATE KEY-----", "MC4CAQAwBQYDK2VwBCIEINUR6n3KpHFrx6J5r9US9i68LpTrFhXL")]
    [False, False, True, True]
    """
    return ("-----" in value or "\n" in value or "\r" in value or len(value) > 255
            or _BASE64_RUN.search(value) is not None)


def load_private_key(path: str | os.PathLike[str] | None = None) -> Any:
    """The Ed25519 private key in the PEM file ``path``, or (``None``) from
    ``$PROVGRAPH_SIGNING_KEY`` (a file name, or PEM text).

    Raises:
        SignatureError: no key given, the file cannot be read, or it holds no Ed25519
            private key.
    """
    serialization, ed25519 = _crypto()
    where: str
    if path is not None:
        where = str(path)
        data = _read(Path(path))
    else:
        env = os.environ.get(ENV_KEY, "")
        if not env:
            raise SignatureError(f"no signing key: give --sign-key FILE or set ${ENV_KEY} "
                                 "(a key file's name or its PEM text; make one with "
                                 "'provgraph keygen FILE')")
        if env.lstrip().startswith("-----BEGIN"):
            where, data = f"${ENV_KEY}", env.encode("utf-8")
        elif looks_like_key_material(env) and not Path(env).is_file():
            raise SignatureError(
                f"${ENV_KEY} is neither PEM text (starting '-----BEGIN') nor the name of a "
                "readable key file; its value is not shown, as it looks like key material: "
                "set it to the whole PEM text or to the key file's name")
        else:
            where, data = env, _read(Path(env))
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{where}: not a signing key: {_pem_problem(data, private=True)}. "
                             f"{_PRIVATE_KEY_FORM}") from exc
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SignatureError(f"{where}: not a signing key: it holds a private key of type "
                             f"{_algorithm(key)}, not Ed25519. {_PRIVATE_KEY_FORM}")
    return key


def load_public_key(path: str | os.PathLike[str]) -> Any:
    """The Ed25519 public key in the PEM file ``path`` (``keygen``'s ``.pub``).

    Raises:
        SignatureError: the file cannot be read or holds no Ed25519 public key.
    """
    serialization, ed25519 = _crypto()
    data = _read(Path(path))
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{path}: not a public key: {_pem_problem(data, private=False)}. "
                             f"{_PUBLIC_KEY_FORM}") from exc
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SignatureError(f"{path}: not a public key for provgraph: it holds a public key "
                             f"of type {_algorithm(key)}, not Ed25519. {_PUBLIC_KEY_FORM}")
    return key


_PRIVATE_KEY_FORM = ("A signing key is an unencrypted Ed25519 private key in a PKCS #8 PEM "
                     "file ('-----BEGIN PRIVATE KEY-----'); make one with 'provgraph keygen "
                     "FILE' (FILE is the private key, for --sign-key; FILE.pub the public key)")
"""What a private key file must hold, and how to make one (the end of every message about
a private key that cannot be used)."""
_PUBLIC_KEY_FORM = ("A public key is an Ed25519 public key in a PEM file ('-----BEGIN PUBLIC "
                   "KEY-----'): the FILE.pub that 'provgraph keygen FILE' wrote beside the "
                   "private key")
"""What a public key file must hold (the end of every message about one that cannot be
used)."""

_KEY_FILE_LIMIT = 1 << 16
"""Bytes of a key file read at most: a PEM Ed25519 key is under 200 bytes."""
_PEM_LABEL = re.compile(rb"-----BEGIN ([A-Z0-9 ]{1,40})-----")


def _pem_problem(data: bytes, *, private: bool) -> str:
    """Why ``data`` is not the PEM key wanted (``private`` or public), in words that never
    quote the data: only a PEM block's label is named."""
    if len(data) > _KEY_FILE_LIMIT:
        return f"it is larger than {_KEY_FILE_LIMIT} bytes, far more than any key file"
    if not data.strip():
        return "it is empty"
    labels = [m.decode("ascii") for m in _PEM_LABEL.findall(data)]
    if not labels:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return "it holds binary data, not PEM text"
        return "it holds no PEM block (no '-----BEGIN ...-----' line)"
    label = labels[0]
    if label == "ENCRYPTED PRIVATE KEY" or b"Proc-Type: 4,ENCRYPTED" in data:
        return ("its private key is encrypted with a password, which provgraph does not ask "
                "for" if private else "it holds an encrypted private key, not a public key")
    if label == "OPENSSH PRIVATE KEY":
        return "it holds an OpenSSH private key, not a PEM (PKCS #8) one"
    if private and label.endswith("PUBLIC KEY"):
        return ("it holds a public key, not the private key: give the key file without "
                "the .pub suffix")
    if not private and label.endswith("PRIVATE KEY"):
        return ("it holds a private key, which must stay secret; give the public key, the "
                ".pub file beside it")
    if label != ("PRIVATE KEY" if private else "PUBLIC KEY") and not label.endswith(" KEY"):
        return f"it holds a PEM '{label}' block, not a key"
    return f"its PEM '{label}' block does not decode as a key"


def _algorithm(key: Any) -> str:
    """``"RSA"``, ``"EC"``, ``"Ed448"``, ...: the algorithm of a loaded key (from its class
    name in ``cryptography``), for a message."""
    name = type(key).__name__.lstrip("_")
    for suffix in ("PrivateKey", "PublicKey"):
        name = name.removesuffix(suffix)
    return name or type(key).__name__


def _read(path: Path) -> bytes:
    """A key file's bytes (at most :data:`_KEY_FILE_LIMIT` + 1 of them)."""
    try:
        with path.open("rb") as fh:
            return fh.read(_KEY_FILE_LIMIT + 1)
    except OSError as exc:
        raise SignatureError(f"cannot read the key file {path}: {exc.strerror or exc}") from exc


def key_id(public_key: Any) -> str:
    """SHA-256 (hex) of the 32 raw bytes of an Ed25519 public key (or of a private key's
    public half)."""
    serialization, ed25519 = _crypto()
    if isinstance(public_key, ed25519.Ed25519PrivateKey):
        public_key = public_key.public_key()
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def bundle_message(bundle: str, digest: str, kid: str) -> bytes:
    """The bytes a bundle signature signs: a fixed label, the bundle IRI, its digest and
    the signing key id, one per line."""
    return f"provgraph-bundle-signature/1\n{bundle}\n{digest}\n{kid}\n".encode("utf-8")


def sign_bundle(private_key: Any, bundle: str, digest: str) -> tuple[str, str]:
    """``(key id, base64 signature)`` of a bundle's digest (:func:`bundle_message`)."""
    kid = key_id(private_key)
    sig = private_key.sign(bundle_message(bundle, digest, kid))
    return kid, base64.b64encode(sig).decode("ascii")


def _verified(public_key: Any, signature: str, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(base64.b64decode(signature, validate=True), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def check_bundle(public_key: Any, bundle: str, digest: str, kid: str | None,
                 signature: str | None) -> str | None:
    """Why a bundle's signature does not hold for ``public_key``, or ``None`` when it does.

    ``digest`` is the digest the bundle records (the caller checks it against the
    content). A bundle with no signature fails: the caller asked for one."""
    if signature is None or kid is None:
        return "it is unsigned (no pg:signature and pg:signingKey)"
    want = key_id(public_key)
    if kid != want:
        return f"it was signed by key {kid}, not by the given key {want}"
    if not _verified(public_key, signature, bundle_message(bundle, digest, kid)):
        return ("its signature does not match its digest: the bundle was changed and "
                "re-digested after it was signed, or the signature was altered")
    return None


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """A signed receipt of a ledger's head (the module docstring).

    Attributes:
        n: number of the ledger's last line (= lines in the ledger).
        head: SHA-256 (hex) of that line.
        time: when the checkpoint was made (ISO 8601 UTC).
        store: the store directory, for people (not checked).
        key: the signing key's id (:func:`key_id`).
        signature: base64 Ed25519 signature over the other fields (:meth:`message`).
    """

    n: int
    head: str
    time: str
    store: str
    key: str
    signature: str = ""

    def message(self) -> bytes:
        """The signed bytes: the fields but ``signature`` as sorted, compact JSON."""
        fields = {k: v for k, v in asdict(self).items() if k != "signature"}
        fields["format"] = "provgraph-checkpoint/1"
        return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("utf-8")


def make_checkpoint(private_key: Any, n: int, head: str, store: str) -> Checkpoint:
    """A :class:`Checkpoint` of line ``n`` with hash ``head``, signed now."""
    unsigned = Checkpoint(n=n, head=head, store=store, key=key_id(private_key),
                          time=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    sig = base64.b64encode(private_key.sign(unsigned.message())).decode("ascii")
    return Checkpoint(**{**asdict(unsigned), "signature": sig})


def write_checkpoint(store: str | os.PathLike[str], private_key: Any,
                     out: str | os.PathLike[str] | None = None) -> tuple[Checkpoint, Path]:
    """Sign the head of the ledger of the store at ``store`` and write the receipt.

    Args:
        store: the store directory (its ``ledger.jsonl`` is read; the chain is checked
            first).
        private_key: from :func:`load_private_key`.
        out: the receipt file; ``None``: ``STORE/checkpoints/checkpoint-N.json`` (copy it
            somewhere the store's writer cannot change: that is what makes it a proof).

    Raises:
        SignatureError: the store has no ledger, or its chain is broken (a checkpoint of a
            broken ledger would prove nothing), or the ledger is empty.
    """
    from .ledger import LEDGER_NAME, check_chain

    root = Path(store)
    if not (root / LEDGER_NAME).is_file():
        raise SignatureError(f"{root}: no ledger ({LEDGER_NAME}) to checkpoint")
    lines, problem = check_chain(root / LEDGER_NAME)
    if problem is not None:
        raise SignatureError(f"{root / LEDGER_NAME}: {problem.reason}; run 'provgraph "
                             "verify' (a broken ledger is not checkpointed)")
    if not lines:
        raise SignatureError(f"{root / LEDGER_NAME} is empty: nothing to checkpoint")
    cp = make_checkpoint(private_key, lines[-1].n, lines[-1].hash, str(root))
    path = Path(out) if out is not None else root / "checkpoints" / f"checkpoint-{cp.n}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(cp), indent=1) + "\n", encoding="utf-8")
    return cp, path


def periodic_checkpoints(root: str | os.PathLike[str], every: str) -> Any:
    """What a store calls after each ledger line when ``$PROVGRAPH_CHECKPOINT_EVERY`` is
    set: ``callback(n, head)`` writes ``ROOT/checkpoints/checkpoint-N.json`` (signed with
    the key of ``$PROVGRAPH_SIGNING_KEY``, loaded once, now) when ``n`` is a multiple of
    ``every``. Copy the receipts off the machine: one the writer can reach proves nothing
    against that writer.

    Raises:
        SignatureError: ``every`` is not a whole number >= 1, or no signing key is set.
    """
    try:
        step = int(every)
    except ValueError:
        step = 0
    if step < 1:
        raise SignatureError(f"${CHECKPOINT_ENV} is {every!r}; give a whole number of ledger "
                             "lines >= 1, or unset it")
    key = load_private_key()
    out = Path(root) / "checkpoints"

    def callback(n: int, head: str) -> None:
        if n % step == 0:
            cp = make_checkpoint(key, n, head, str(root))
            out.mkdir(exist_ok=True)
            (out / f"checkpoint-{n}.json").write_text(json.dumps(asdict(cp), indent=1) + "\n",
                                                       encoding="utf-8")
    return callback


def read_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a receipt :func:`write_checkpoint` wrote.

    Raises:
        SignatureError: the file cannot be read or is not a checkpoint receipt.
    """
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
        return Checkpoint(n=int(obj["n"]), head=str(obj["head"]), time=str(obj["time"]),
                          store=str(obj["store"]), key=str(obj["key"]),
                          signature=str(obj["signature"]))
    except OSError as exc:
        raise SignatureError(f"cannot read the checkpoint {path}: {exc.strerror or exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise SignatureError(f"{path}: not a provgraph checkpoint receipt ({exc})") from exc


def check_checkpoint(receipt: str | os.PathLike[str], public_key: str | os.PathLike[str] | None,
                     lines: list[Any]) -> str | None:
    """Why the ledger ``lines`` (from :func:`provgraph.ledger.check_chain`, up to its
    first break) do not extend the checkpointed prefix, or ``None`` when they do.

    Raises:
        SignatureError: no public key given, or a file cannot be read.
    """
    if public_key is None:
        raise SignatureError("a checkpoint is checked against a public key: give --key PUB")
    cp = read_checkpoint(receipt)
    pub = load_public_key(public_key)
    if cp.key != key_id(pub):
        return f"the checkpoint was signed by key {cp.key}, not by the given key {key_id(pub)}"
    if not _verified(pub, cp.signature, cp.message()):
        return "the checkpoint's signature does not hold: the receipt was altered"
    if len(lines) < cp.n:
        return (f"the checkpoint holds line {cp.n}; the ledger's intact chain ends at line "
                f"{len(lines)}: lines up to the checkpoint were deleted or rewritten")
    if lines[cp.n - 1].hash != cp.head:
        return (f"line {cp.n} of the ledger hashes to {lines[cp.n - 1].hash}, the checkpoint "
                f"of {cp.time} holds {cp.head}: the ledger was rewritten up to line {cp.n}")
    return None
