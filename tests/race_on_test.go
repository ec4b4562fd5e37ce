//go:build linux && race

package tests

// raceEnabled: the race detector slows every op ~10x; stress counts shrink.
const raceEnabled = true
