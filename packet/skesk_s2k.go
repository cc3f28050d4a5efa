package packet

// S2K is S2KType with the specifier's salt (RFC 9580 §3.7: 8 octets, 16
// for Argon2; none for simple S2K).
// gpg names a message's passphrase in gpg-agent's cache by this salt and
// reports type and hash in NEED_PASSPHRASE_SYM.
func (s *SKESK) S2K() (mode, hash byte, salt []byte) {
	mode, hash = s.S2KType()
	spec := s.s2k()
	switch {
	case (mode == 1 || mode == 3) && len(spec) >= 10:
		salt = spec[2:10:10]
	case mode == 4 && len(spec) >= 17:
		salt = spec[1:17:17]
	}
	return mode, hash, salt
}

// SessionKeyMode says how the SKESK holds the session key, as gpg names
// it: "CFB" for a v4 SKESK with an encrypted session key, the AEAD mode
// ("OCB", "EAX", "GCM") for v5 and v6, and "" for a v4 SKESK whose S2K
// output is the session key itself.
func (s *SKESK) SessionKeyMode() string {
	switch s.Version {
	case 5:
		if len(s.body) > 2 {
			return AEADAlgo(s.body[2]).String()
		}
	case 6:
		if len(s.body) > 3 {
			return AEADAlgo(s.body[3]).String()
		}
	case 4:
		spec := s.s2k()
		if len(spec) == 0 {
			return ""
		}
		n := map[byte]int{0: 2, 1: 10, 3: 11, 4: 20}[spec[0]]
		if n > 0 && len(spec) > n {
			return "CFB"
		}
	}
	return ""
}
