//go:build linux

package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShortRunMeasuresSomething: a network run whose duration is over
// before its client goroutines start (a slow or emulated machine) still
// measures: each connection makes one round trip and each sender one
// write. The clients checked the clock first and a late run measured
// nothing ("no round trip completed", or 0 MB/s), which failed the
// bench tests under qemu now and then.
func TestShortRunMeasuresSomething(t *testing.T) {
	const d = time.Nanosecond
	runs := map[string]func() (sample, error){
		"echo go":      func() (sample, error) { return echoGo(2, 64, d) },
		"echo task":    func() (sample, error) { return echoTask(1, 2, 64, d) },
		"tcprecv go":   func() (sample, error) { return recvRun(2, d, recvGo(512)) },
		"tcprecv task": func() (sample, error) { return recvRun(2, d, recvTask(512)) },
		"http-std go":  func() (sample, error) { return httpStd(0, 2, d, (&Config{NoPeers: true, Duration: d}).pickLoad()) },
		"http task":    func() (sample, error) { return httpTask(1, 2, d, (&Config{NoPeers: true, Duration: d}).pickLoad()) },
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			s, err := run()
			require.NoError(t, err)
			require.Positive(t, s.v)
		})
	}
}
