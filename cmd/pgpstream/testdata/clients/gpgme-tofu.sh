# GPGME through python3-gpg under gpg's TOFU model (trust-model tofu in
# gpg.conf, as a TOFU user sets it): a verified signature's validity comes
# from the key's history, a key listing with GPGME_KEYLIST_MODE_WITH_TOFU
# reads that history (gpg's tfs records), and gpgme_op_tofu_policy sets a
# key's policy (gpg --tofu-policy), which the next verification reflects.
. "$CLIENTS/lib.sh"
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
GNUPGHOME="$HOME/bob" gpg --batch --armor --export bob@example.org >bob.asc
echo 'a message from Bob' >msg
GNUPGHOME="$HOME/bob" gpg --batch -u bob@example.org --armor --detach-sign -o msg.asc msg
GNUPGHOME="$HOME/bob" gpgconf --kill gpg-agent
echo 'trust-model tofu' >>"$GNUPGHOME/gpg.conf"
exec "$PYTHON" - <<'PY'
import os, gpg
from gpg.constants import protocol, keylist, validity, tofu
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
c = gpg.Context(armor=True)
c.set_engine_info(protocol.OpenPGP, file_name=binary, home_dir=home)
with open("bob.asc", "rb") as f:
    c.key_import(f.read())
with open("msg", "rb") as m, open("msg.asc", "rb") as s:
    _, vres = c.verify(m.read(), signature=s.read())
sig = vres.signatures[0]
assert sig.status == 0, sig
assert sig.validity == validity.MARGINAL, ("first use", sig.validity)

def bob():
    k = list(c.keylist("bob@example.org", mode=keylist.mode.LOCAL | keylist.mode.WITH_TOFU))[0]
    return k, k.uids[0].tofu[0]

key, info = bob()
assert info.policy == tofu.policy.AUTO, info.policy
assert info.signcount == 1 and info.encrcount == 0, (info.signcount, info.encrcount)
assert info.validity == 2, info.validity  # a key with little history
c.key_tofu_policy(key, tofu.policy.GOOD)
key, info = bob()
assert info.policy == tofu.policy.GOOD, info.policy
assert key.uids[0].validity == validity.FULL, key.uids[0].validity
with open("msg", "rb") as m, open("msg.asc", "rb") as s:
    _, vres = c.verify(m.read(), signature=s.read())
assert vres.signatures[0].validity == validity.FULL, vres.signatures[0].validity
key, info = bob()
assert info.signcount == 1, ("a signature seen again is not counted again", info.signcount)
print("ok")
PY
