//go:build !purego

package hwf

// PureGo reports a build with the purego tag: no assembly engine exists,
// whatever the CPU has.
const PureGo = false
