package gnupgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pinentryScript is a pinentry for tests: it speaks enough of the
// pinentry protocol (Assuan) to answer every GETPIN with the first line
// of the file "pinentry.pin" beside it, and logs each GETPIN, with the
// description the agent set, to "pinentry.log".
const pinentryScript = `#!/bin/sh
dir=$(dirname "$0")
desc=
echo "OK Pleased to meet you"
while IFS= read -r line; do
  case "$line" in
    SETDESC*) desc=${line#SETDESC }; echo OK;;
    SETERROR*) echo "ERROR ${line#SETERROR }" >> "$dir/pinentry.log"; echo OK;;
    GETPIN*) echo "GETPIN $desc" >> "$dir/pinentry.log"
      pin=$(head -n1 "$dir/pinentry.pin")
      if [ -z "$pin" ]; then echo "ERR 83886179 Operation cancelled"; else printf 'D %s\nOK\n' "$pin"; fi;;
    BYE*) echo "OK closing connection"; exit 0;;
    *) echo OK;;
  esac
done
`

// Pinentry is the home's scripted pinentry.
type Pinentry struct{ dir string }

// ScriptedPinentry makes the home's agent use a scripted pinentry that
// answers pin (an empty pin cancels), and allows gpg-preset-passphrase.
// The agent is restarted to read its new configuration.
func (h *Home) ScriptedPinentry(pin string) *Pinentry {
	h.t.Helper()
	p := &Pinentry{dir: h.Dir}
	prog := filepath.Join(h.Dir, "pinentry.sh")
	if err := os.WriteFile(prog, []byte(pinentryScript), 0o700); err != nil {
		h.t.Fatal(err)
	}
	p.Set(pin)
	conf := "allow-loopback-pinentry\nallow-preset-passphrase\npinentry-program " + prog + "\n"
	if err := os.WriteFile(filepath.Join(h.Dir, "gpg-agent.conf"), []byte(conf), 0o600); err != nil {
		h.t.Fatal(err)
	}
	h.Try(nil, "gpgconf", "--kill", "gpg-agent")
	return p
}

// Set changes the passphrase the pinentry answers.
func (p *Pinentry) Set(pin string) {
	os.WriteFile(filepath.Join(p.dir, "pinentry.pin"), []byte(pin+"\n"), 0o600)
}

// Asked returns the GETPIN lines (with their descriptions) and the
// errors shown, in order, since the last call.
func (p *Pinentry) Asked() []string {
	path := filepath.Join(p.dir, "pinentry.log")
	b, _ := os.ReadFile(path)
	os.Remove(path)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, strings.ReplaceAll(l, "%20", " ")) // as the agent escapes SETDESC
		}
	}
	return out
}

// Preset puts passphrase into the running agent's cache under id, with
// gpg-preset-passphrase (GnuPG's tool for unattended machines).
func (h *Home) Preset(id, passphrase string) {
	h.t.Helper()
	tool := "/usr/lib/gnupg/gpg-preset-passphrase"
	if _, err := os.Stat(tool); err != nil {
		if p, err := exec.LookPath("gpg-preset-passphrase"); err == nil {
			tool = p
		}
	}
	h.Run(nil, "gpgconf", "--launch", "gpg-agent")
	h.Run([]byte(passphrase), tool, "--preset", id)
}

// Forget clears what the running agent caches under id (gpg-preset-
// passphrase --forget cannot: it has no inquiry callback in gpg 2.2).
func (h *Home) Forget(id string) {
	h.t.Helper()
	h.Run(nil, "gpg-connect-agent", "CLEAR_PASSPHRASE "+id, "/bye")
}
