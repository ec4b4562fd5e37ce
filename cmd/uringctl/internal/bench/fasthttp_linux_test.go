//go:build linux

package bench

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// buildFasthttpOrSkip builds src like the peer; it skips when the go
// toolchain or the fasthttp module is not available (offline), and
// returns any other error.
func buildFasthttpOrSkip(t *testing.T, src string) (string, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds fasthttp with the go command (10-40 s on a fresh machine); run without -short")
	}
	bin, err := buildFasthttp(t.TempDir(), src)
	var un fasthttpUnavailable
	if errors.As(err, &un) {
		t.Skipf("fasthttp peer not buildable here: %v", err)
	}
	return bin, err
}

func TestFasthttpPeer(t *testing.T) {
	bin, err := buildFasthttpOrSkip(t, fasthttpSource)
	require.NoError(t, err, "the embedded fasthttp program must build")

	addr, stop, err := startFasthttp(bin, 1)
	require.NoError(t, err)
	defer stop()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://" + addr + "/")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, helloBody, string(body))
	require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Empty(t, resp.Header.Get("Server"), "no Server header, like net/http")
	require.NotEmpty(t, resp.Header.Get("Date"))

	// The same load the sweep runs, through the in-process client.
	load := (&Config{NoPeers: true}).pickLoad()
	require.Equal(t, "in-process", load.name)
	s, err := runFasthttp(bin, 1, 2, 50*time.Millisecond, load)
	require.NoError(t, err)
	require.Greater(t, s.v, 0.0)
}

func TestFasthttpPeerBuildErrors(t *testing.T) {
	// A compile error in our source is a build failure, not "unavailable".
	_, err := buildFasthttpOrSkip(t, strings.Replace(fasthttpSource, "ctx.SetBody(body)", "ctx.SetBody(nope(body))", 1))
	require.ErrorContains(t, err, "building the fasthttp peer failed")
	require.ErrorContains(t, err, "undefined: nope")
	var un fasthttpUnavailable
	require.False(t, errors.As(err, &un))

	// No module proxy and an empty module cache: unavailable, with go's reason.
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	_, err = buildFasthttp(t.TempDir(), fasthttpSource)
	require.ErrorAs(t, err, &un)
	require.ErrorContains(t, err, "fasthttp module not available: ")
	require.ErrorContains(t, err, "GOPROXY=off")
}

func TestFasthttpPeersOnlyForHTTP(t *testing.T) {
	load := (&Config{}).pickLoad()
	require.Nil(t, (&Config{}).fasthttpPeers("http-std", 1, 10, time.Second, load))
	require.Nil(t, (&Config{NoPeers: true}).fasthttpPeers("http", 1, 10, time.Second, load))
}

func TestGoErrorLine(t *testing.T) {
	out := "go: downloading github.com/valyala/fasthttp v1.69.0\ngo: fasthttp-hello imports\n\tgithub.com/valyala/fasthttp: module lookup disabled by GOPROXY=off\n"
	require.Equal(t, "go: fasthttp-hello imports github.com/valyala/fasthttp: module lookup disabled by GOPROXY=off", goErrorLine(out, nil))
	out = "# fasthttp-hello\n./main.go:31:2: declared and not used: body\n./main.go:35:4: undefined: nope\n"
	require.Equal(t, "./main.go:31:2: declared and not used: body", goErrorLine(out, nil))
	require.Equal(t, "exit status 1", goErrorLine("go: downloading x v1\n", errors.New("exit status 1")))
}
