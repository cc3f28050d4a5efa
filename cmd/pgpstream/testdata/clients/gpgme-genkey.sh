# GPGME's genkey sends gpg a --gen-key --batch parameter file; then the new
# key signs and decrypts.
. "$CLIENTS/lib.sh"
exec "$PYTHON" - <<'PY'
import os, gpg
from gpg.constants import protocol
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
c = gpg.Context(armor=True)
c.set_engine_info(protocol.OpenPGP, file_name=binary, home_dir=home)
params = """<GnupgKeyParms format="internal">
Key-Type: EDDSA
Key-Curve: ed25519
Key-Usage: sign
Subkey-Type: ECDH
Subkey-Curve: cv25519
Subkey-Usage: encrypt
Name-Real: Carol
Name-Comment: generated
Name-Email: carol@example.org
Expire-Date: 2y
%no-protection
</GnupgKeyParms>
"""
c.op_genkey(params, None, None)
r = c.op_genkey_result()
assert r.primary and r.sub and r.fpr, r
k = c.get_key(r.fpr)
assert k.uids[0].uid == "Carol (generated) <carol@example.org>", k.uids[0].uid
assert k.subkeys[0].expires > 0 and k.subkeys[1].expires > 0, [s.expires for s in k.subkeys]
assert k.subkeys[1].curve == "cv25519" and k.subkeys[0].curve == "ed25519", [s.curve for s in k.subkeys]
cipher, _, _ = c.encrypt(b"to carol\n", recipients=[k], sign=False)
plain, _, _ = c.decrypt(cipher)
assert plain == b"to carol\n"

# create_key is --quick-gen-key.
r = c.create_key("Dave <dave@example.org>", algorithm="ed25519", expires=False, sign=True, passphrase=None)
d = c.get_key(r.fpr)
assert d.uids[0].email == "dave@example.org" and d.subkeys[0].can_sign, d
r = c.create_subkey(d, algorithm="cv25519", expires=False, encrypt=True)
d = c.get_key(d.fpr)
assert len(d.subkeys) == 2 and d.subkeys[1].can_encrypt, d.subkeys
print("ok")
PY
