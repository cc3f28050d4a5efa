# GPGME through python3-gpg, the flows of GPGME's own tests/gpg that a
# user of the binding meets: text-mode signatures (gpgme_set_textmode),
# a signature's policy URL and notations (t-verify's signature, by
# GPGME's demo key), "No data" for input with no OpenPGP data, the
# primary user ID first, a key listing with signatures, and a
# certification that expires (gpgme_op_keysign with an expiry).
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
GNUPGHOME="$HOME/bob" gpg --batch --armor --export bob@example.org >bob.asc
cp "$CLIENTS/gpgme-alpha.asc" alpha.asc
exec "$PYTHON" - <<'PY'
import os, time, gpg
from gpg.constants import protocol, sig, keylist
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
c = gpg.Context(armor=True)
c.set_engine_info(protocol.OpenPGP, file_name=binary, home_dir=home)
alice = list(c.keylist("alice@example.org"))[0]

# Text mode: class 01 signatures, over CR LF line endings.
c.signers = [alice]
c.textmode = True
for mode in (sig.mode.NORMAL, sig.mode.DETACH):
    signed, sres = c.sign(b"text\nlines\n", mode=mode)
    assert sres.signatures[0].sig_class == 1, (mode, sres.signatures[0].sig_class)
    if mode == sig.mode.DETACH:
        _, vres = c.verify(b"text\r\nlines\r\n", signature=signed)
    else:
        data, vres = c.verify(signed)
        assert data.replace(b"\r\n", b"\n") == b"text\nlines\n", data
    assert vres.signatures[0].status == 0, vres.signatures[0]
c.textmode = False

# Input with no OpenPGP data is "No data".
try:
    c.verify(b"foo\n")
    raise SystemExit("garbage verified")
except gpg.errors.GPGMEError as e:
    assert e.getcode() == gpg.errors.NO_DATA, e
    print("no data:", e)

# GPGME's demo key: the primary user ID comes first, and t-verify's
# signature carries a policy URL and two notations.
with open("alpha.asc", "rb") as f:
    c.key_import(f.read())
a = list(c.keylist("A0FF4590BB6122EDEF6E3C542D727CC768697734"))[0]
assert [u.name for u in a.uids] == ["Alfa Test", "Alpha Test", "Alice"], [u.uid for u in a.uids]
sig1 = b"""-----BEGIN PGP SIGNATURE-----

iN0EABECAJ0FAjoS+i9FFIAAAAAAAwA5YmFyw7bDpMO8w58gZGFzIHdhcmVuIFVt
bGF1dGUgdW5kIGpldHp0IGVpbiBwcm96ZW50JS1aZWljaGVuNRSAAAAAAAgAJGZv
b2Jhci4xdGhpcyBpcyBhIG5vdGF0aW9uIGRhdGEgd2l0aCAyIGxpbmVzGhpodHRw
Oi8vd3d3Lmd1Lm9yZy9wb2xpY3kvAAoJEC1yfMdoaXc0JBIAoIiLlUsvpMDOyGEc
dADGKXF/Hcb+AKCJWPphZCphduxSvrzH0hgzHdeQaA==
=nts1
-----END PGP SIGNATURE-----
"""
_, vres = c.verify(b"Just GNU it!\n", signature=sig1)
s = vres.signatures[0]
assert s.status == 0 and s.fpr == a.fpr, s
notes = {n.name: n.value for n in s.notations}
assert notes == {None: "http://www.gu.org/policy/", "bar": "\u00f6\u00e4\u00fc\u00df das waren Umlaute und jetzt ein prozent%-Zeichen",
                 "foobar.1": "this is a notation data with 2 lines"}, notes

# Signatures in a key listing, and a certification that expires.
with open("bob.asc", "rb") as f:
    c.key_import(f.read())
bob = list(c.keylist("bob@example.org"))[0]
c.signers = [alice]
c.key_sign(bob, expires_in=42 * 86400)
bob = list(c.keylist("bob@example.org", mode=keylist.mode.LOCAL | keylist.mode.SIGS))[0]
certs = [x for x in bob.uids[0].signatures if x.keyid == alice.subkeys[0].keyid]
assert len(certs) == 1, [(x.keyid, x.timestamp) for x in bob.uids[0].signatures]
assert certs[0].expires - certs[0].timestamp == 42 * 86400, (certs[0].timestamp, certs[0].expires)
assert any(x.keyid == bob.subkeys[0].keyid for x in bob.uids[0].signatures), "no self-signature listed"
print("ok")
PY
