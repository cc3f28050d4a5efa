# Emacs EPG (epg.el, what EasyPG and Gnus use): list keys, encrypt and
# decrypt a string, sign and verify it (normal, detached, clear), and
# encrypt to a key of unknown validity: asked about (GET_BOOL on the
# command fd), used on yes, refused on no.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
GNUPGHOME="$HOME/bob" gpg --batch --armor --export bob@example.org >bob.asc
gpg --batch --import bob.asc
cat >epg-test.el <<'EL'
(require 'epg)
(require 'cl-lib)
(setq epg-gpg-program (getenv "GPG")
      epg-gpg-home-directory (getenv "GNUPGHOME"))
(let* ((conf (epg-find-configuration 'OpenPGP 'no-cache)))
  (unless conf (error "epg-find-configuration found no usable gpg"))
  (message "config: %S" conf))
(let* ((ctx (epg-make-context 'OpenPGP))
       (keys (epg-list-keys ctx "alice@example.org"))
       (secret (epg-list-keys ctx "alice@example.org" t)))
  (unless (= (length keys) 1) (error "list-keys: %S" keys))
  (unless (= (length secret) 1) (error "secret list-keys: %S" secret))
  (let ((uid (car (epg-key-user-id-list (car keys)))))
    (unless (equal (epg-user-id-string uid) "Alice <alice@example.org>")
      (error "user id: %S" uid))
    (unless (eq (epg-user-id-validity uid) 'ultimate)
      (error "validity: %S" (epg-user-id-validity uid))))
  (setf (epg-context-armor ctx) t)
  (let* ((cipher (epg-encrypt-string ctx "hello from emacs\n" keys))
         (plain (epg-decrypt-string ctx cipher)))
    (unless (string-prefix-p "-----BEGIN PGP MESSAGE-----" cipher) (error "cipher: %S" cipher))
    (unless (equal plain "hello from emacs\n") (error "decrypt: %S" plain)))
  (setf (epg-context-signers ctx) keys)
  (dolist (mode '(nil detached clear))
    (let* ((sig (epg-sign-string ctx "signed by emacs\n" mode))
           (plain (if (eq mode 'detached)
                      (progn (epg-verify-string ctx sig "signed by emacs\n") nil)
                    (epg-verify-string ctx sig)))
           (result (epg-context-result-for ctx 'verify)))
      (unless (and (= (length result) 1)
                   (eq (epg-signature-status (car result)) 'good)
                   (eq (epg-signature-validity (car result)) 'ultimate))
        (error "verify %S: %S" mode result))
      (when (and (not (eq mode 'detached))
                 (not (string-match-p "signed by emacs" plain)))
        (error "verified text %S: %S" mode plain))
      (message "verify %S: %s" mode (epg-signature-to-string (car result)))))
  (let ((both (epg-encrypt-string ctx "signed and sealed\n" keys t)))
    (unless (equal (epg-decrypt-string ctx both) "signed and sealed\n") (error "sign+encrypt"))
    (unless (eq (epg-signature-status (car (epg-context-result-for ctx 'verify))) 'good)
      (error "sign+encrypt verify: %S" (epg-context-result-for ctx 'verify))))
  ;; Bob's key is of unknown validity: gpg asks (GET_BOOL
  ;; untrusted_key.override on the command fd) and EPG asks the user,
  ;; whose answer decides.
  (let ((bob (epg-list-keys ctx "bob@example.org"))
        (asked 0))
    (setf (epg-context-signers ctx) nil)
    (cl-letf (((symbol-function 'epg--prompt-GET_BOOL-untrusted_key.override)
               (lambda (_c _s) (setq asked (1+ asked)) t)))
      (let ((cipher (epg-encrypt-string ctx "to bob\n" bob)))
        (unless (= asked 1) (error "asked %d times about Bob's key" asked))
        (unless (> (length cipher) 100) (error "to bob: %S" cipher))))
    (cl-letf (((symbol-function 'epg--prompt-GET_BOOL-untrusted_key.override)
               (lambda (_c _s) nil)))
      (condition-case err
          (progn (epg-encrypt-string ctx "to bob\n" bob)
                 (error "encrypted to Bob though the answer was no"))
        (epg-error
         (unless (string-match-p "key not trusted" (format "%S" err)) (error "refused: %S" err))
         (message "refused: %S" err))))))
(message "ok")
EL
emacs --batch -Q -l epg-test.el
