//go:build linux && race

package task

// raceEnabled: the tests run under the race detector.
const raceEnabled = true
