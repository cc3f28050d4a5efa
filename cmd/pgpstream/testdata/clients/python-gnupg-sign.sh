# python-gnupg: sign and verify (clear, inline, detached), trust_level, and
# trust_keys (--import-ownertrust).
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
exec "$PYTHON" - <<'PY'
import os, gnupg
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
g = gnupg.GPG(gnupghome=home, gpgbinary=binary)
fpr = g.list_keys()[0]["fingerprint"]
msg = "a message to sign\n"

s = g.sign(msg, keyid=fpr)
assert s.status == "signature created" and s.fingerprint == fpr, (s.status, s.fingerprint, s.stderr)
assert str(s).startswith("-----BEGIN PGP SIGNED MESSAGE-----"), str(s)[:80]
v = g.verify(str(s))
assert v.valid and v.status == "signature valid", (v.status, v.stderr)
assert v.fingerprint == fpr and v.pubkey_fingerprint == fpr, (v.fingerprint, v.pubkey_fingerprint)
assert v.username == "Alice <alice@example.org>", v.username
assert v.trust_level == v.TRUST_ULTIMATE and v.trust_text == "TRUST_ULTIMATE", (v.trust_level, v.trust_text)
assert v.signature_id and v.sig_timestamp, (v.signature_id, v.sig_timestamp)

s = g.sign(msg, keyid=fpr, clearsign=False)
assert s.fingerprint == fpr and str(s).startswith("-----BEGIN PGP MESSAGE-----"), (s.status, s.stderr)
v = g.verify(str(s))
assert v.valid and v.fingerprint == fpr, (v.status, v.stderr)

s = g.sign(msg, keyid=fpr, binary=True, clearsign=False)
assert s.fingerprint == fpr, (s.status, s.stderr)
v = g.verify(s.data)
assert v.valid, (v.status, v.stderr)

s = g.sign(msg, keyid=fpr, detach=True)
assert s.fingerprint == fpr and str(s).startswith("-----BEGIN PGP SIGNATURE-----"), (s.status, s.stderr)
with open("msg.sig", "w") as f:
    f.write(str(s))
v = g.verify_data("msg.sig", msg.encode())
assert v.valid and v.fingerprint == fpr, (v.status, v.stderr)
v = g.verify_data("msg.sig", b"another message\n")
assert not v.valid and v.status == "signature bad", (v.status, v.stderr)

# A key imported into another home is valid but not trusted, until its
# owner trust is set (ultimate: under the pgp model, full owner trust
# only makes valid the keys it certifies).
os.mkdir(home + "2", 0o700)
g2 = gnupg.GPG(gnupghome=home + "2", gpgbinary=binary)
assert g2.import_keys(g.export_keys(fpr)).count == 1
s = g.sign(msg, keyid=fpr)
v = g2.verify(str(s))
assert v.valid and v.trust_level == v.TRUST_UNDEFINED, (v.trust_level, v.trust_text, v.stderr)
r = g2.trust_keys(fpr, "TRUST_ULTIMATE")
assert r.status == "ok", (r.status, r.stderr)
v = g2.verify(str(s))
assert v.valid and v.trust_level == v.TRUST_ULTIMATE, (v.trust_level, v.trust_text, v.stderr)
# A signature by a key g2 does not have.
os.mkdir(home + "3", 0o700)
g3 = gnupg.GPG(gnupghome=home + "3", gpgbinary=binary)
v = g3.verify(str(s))
assert not v.valid and v.status == "no public key" and v.key_id == fpr[24:], (v.status, v.key_id, v.stderr)
print("ok")
PY
