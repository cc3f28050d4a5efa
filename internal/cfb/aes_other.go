//go:build (!amd64 && !arm64) || purego

package cfb

// Implementation names the AES-CFB engine NewAESEncrypter and
// NewAESDecrypter would pick now.
func Implementation() string { return "pure Go" }

// newAESNI has no assembly to offer on this build.
func newAESNI(key []byte) engine { return nil }
