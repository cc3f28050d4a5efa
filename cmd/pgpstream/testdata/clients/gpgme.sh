# GPGME through python3-gpg, its gpg engine pointed at the program under
# test: key listing, encrypt/decrypt, sign/verify in every mode, import.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
GNUPGHOME="$HOME/bob" gpg --batch --armor --export bob@example.org >bob.asc
exec "$PYTHON" - <<'PY'
import os, gpg
from gpg.constants import protocol, sig, validity
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
c = gpg.Context(armor=True)
c.set_engine_info(protocol.OpenPGP, file_name=binary, home_dir=home)
print(c.engine_info.file_name, c.engine_info.version)

keys = list(c.keylist("alice@example.org"))
assert len(keys) == 1, keys
k = keys[0]
assert k.uids[0].email == "alice@example.org" and k.uids[0].name == "Alice", k.uids[0]
assert k.owner_trust == validity.ULTIMATE and k.uids[0].validity == validity.ULTIMATE, (k.owner_trust, k.uids[0].validity)
assert len(k.subkeys) == 2 and k.subkeys[0].can_sign and k.subkeys[1].can_encrypt, k.subkeys
assert k.subkeys[0].fpr == k.fpr and k.subkeys[0].pubkey_algo == gpg.constants.pk.EDDSA, k.subkeys[0]
sec = list(c.keylist(secret=True))
assert [x.fpr for x in sec] == [k.fpr] and sec[0].secret, sec
assert list(c.keylist("nobody@example.org")) == []

cipher, res, _ = c.encrypt(b"hello gpgme\n", recipients=[k], sign=False, always_trust=False)
assert not res.invalid_recipients, res
plain, dres, vres = c.decrypt(cipher)
assert plain == b"hello gpgme\n", plain
assert dres.recipients[0].keyid == k.subkeys[1].keyid, dres.recipients
assert dres.file_name is None or dres.file_name == "", dres.file_name

c.signers = [k]
for mode in (sig.mode.NORMAL, sig.mode.DETACH, sig.mode.CLEAR):
    signed, sres = c.sign(b"signed by gpgme\n", mode=mode)
    assert sres.signatures[0].fpr == k.fpr, sres
    if mode == sig.mode.DETACH:
        _, vres = c.verify(b"signed by gpgme\n", signature=signed)
    else:
        data, vres = c.verify(signed)
        assert data.replace(b"\r\n", b"\n") == b"signed by gpgme\n", (mode, data)
    s = vres.signatures[0]
    assert s.fpr == k.fpr and s.status == 0 and s.validity >= validity.FULL, (mode, s)
    assert s.summary & gpg.constants.sigsum.VALID, (mode, s.summary)

cipher, _, sres = c.encrypt(b"signed and sealed\n", recipients=[k], sign=True)
plain, _, vres = c.decrypt(cipher, verify=True)
assert plain == b"signed and sealed\n" and vres.signatures[0].fpr == k.fpr, vres

# A bad signature raises.
signed, _ = c.sign(b"original\n", mode=sig.mode.DETACH)
try:
    c.verify(b"tampered\n", signature=signed)
    raise SystemExit("a bad signature verified")
except gpg.errors.BadSignatures as e:
    print("bad signature:", e)

# Import Bob; encrypting to him needs always_trust, since he is not valid.
with open("bob.asc", "rb") as f:
    r = c.key_import(f.read())
assert r.imported == 1 and r.considered == 1, r
bob = list(c.keylist("bob@example.org"))[0]
assert bob.uids[0].validity == validity.UNKNOWN, bob.uids[0].validity
try:
    c.encrypt(b"x", recipients=[bob], sign=False, always_trust=False)
    raise SystemExit("encrypted to an untrusted key without always_trust")
except gpg.errors.InvalidRecipients as e:
    print("invalid recipients:", e)
cipher, res, _ = c.encrypt(b"to bob\n", recipients=[bob], sign=False, always_trust=True)
assert not res.invalid_recipients
print("ok")
PY
