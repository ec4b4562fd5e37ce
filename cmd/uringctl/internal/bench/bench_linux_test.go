//go:build linux

package bench

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const wrkOutput = `Running 1s test @ http://127.0.0.1:8080/
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   105.20us   50.00us   2.10ms   90.00%
    Req/Sec    92.10k     1.20k   94.00k    70.00%
  Latency Distribution
     50%   98.00us
     75%  110.00us
     90%  130.00us
     99%    1.25ms
  92100 requests in 1.00s, 11.30MB read
Requests/sec:  92093.45
Transfer/sec:     11.30MB
`

func TestParseWrk(t *testing.T) {
	s, err := parseWrk([]byte(wrkOutput))
	require.NoError(t, err)
	require.Equal(t, 92093.45, s.v)
	require.Equal(t, 1250.0, s.p99)
	require.Equal(t, 2100.0, s.max)
	_, err = parseWrk([]byte("  Non-2xx or 3xx responses: 12\nRequests/sec: 5\n"))
	require.ErrorContains(t, err, "12 non-2xx")
	_, err = parseWrk([]byte("garbage"))
	require.ErrorContains(t, err, "no Requests/sec")
}

func TestPollQueues(t *testing.T) {
	why := pollQueues(".")
	if why != "" {
		require.Regexp(t, "poll queues|not on a block device", why)
	}
	if why := directIO("bench_test.go"); why != "" {
		require.Contains(t, why, "O_DIRECT")
	}
}

// The shapes wrk runs in: keep-alive, a new connection per request, and 16
// requests per write; each answers every request (net/http on net.Listen).
func TestWrkShapes(t *testing.T) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not installed (the load generator, not a kernel feature)")
	}
	for _, shape := range []httpShape{shapeKeepAlive, shapeClose, shapePipeline} {
		smp, err := httpStd(0, 4, time.Second, httpLoad{name: "wrk", run: func(addr string, conns int, d time.Duration) (sample, error) {
			return runWrkShape(bin, addr, conns, d, shape)
		}})
		require.NoError(t, err, shape)
		require.Greater(t, smp.v, 0.0, shape)
		require.Greater(t, smp.max, 0.0, shape)
		require.GreaterOrEqual(t, smp.max, smp.p99, shape)
	}
}
