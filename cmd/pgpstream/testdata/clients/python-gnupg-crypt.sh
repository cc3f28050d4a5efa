# python-gnupg: encrypt and decrypt to a key and with a passphrase.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
exec "$PYTHON" - <<'PY'
import os, gnupg
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
g = gnupg.GPG(gnupghome=home, gpgbinary=binary)
fpr = g.list_keys()[0]["fingerprint"]

e = g.encrypt("hello python-gnupg\n", fpr)
assert e.ok and e.status == "encryption ok", (e.status, e.stderr)
assert str(e).startswith("-----BEGIN PGP MESSAGE-----")
d = g.decrypt(str(e))
assert d.ok and d.status == "decryption ok", (d.status, d.stderr)
assert str(d) == "hello python-gnupg\n", str(d)
assert d.key_id, d.key_id

# Binary, to and from files.
with open("plain.txt", "w") as f:
    f.write("file contents\n")
with open("plain.txt", "rb") as f:
    e = g.encrypt_file(f, [fpr], armor=False, output="plain.gpg")
assert e.ok, (e.status, e.stderr)
with open("plain.gpg", "rb") as f:
    d = g.decrypt_file(f, output="plain.out")
assert d.ok, (d.status, d.stderr)
assert open("plain.out").read() == "file contents\n"

# An unknown recipient fails.
e = g.encrypt("x", "nobody@example.org")
assert not e.ok and e.status == "invalid recipient", (e.status, e.stderr)

# Symmetric, right and wrong passphrase.
e = g.encrypt("symmetric text", None, symmetric="AES256", passphrase="correct horse", armor=True)
assert e.ok, (e.status, e.stderr)
d = g.decrypt(str(e), passphrase="correct horse")
assert d.ok and str(d) == "symmetric text", (d.status, d.stderr)
d = g.decrypt(str(e), passphrase="wrong")
assert not d.ok, (d.status, d.stderr)

# Encrypted and signed.
e = g.encrypt("signed and sealed", fpr, sign=fpr)
assert e.ok, (e.status, e.stderr)
d = g.decrypt(str(e))
assert d.ok and str(d) == "signed and sealed", (d.status, d.stderr)
assert d.valid and d.fingerprint == fpr, (d.valid, d.fingerprint, d.stderr)
print("ok")
PY
