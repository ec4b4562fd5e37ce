//go:build linux

package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// tree makes a directory of files for the FS tests and returns it with
// the contents by name.
func tree(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"a.txt":          []byte("alpha\n"),
		"sub/b.bin":      make([]byte, 70_000),
		"sub/deep/c.txt": []byte("gamma"),
		"empty":          nil,
	}
	for i := range files["sub/b.bin"] {
		files["sub/b.bin"][i] = byte(i * 31)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	return dir, files
}

// FS passes testing/fstest.TestFS (fs.FS, ReadFileFS, ReadDirFS, StatFS,
// SubFS and the files' ReadAt, Seek, ReadDir), reads back every byte, and
// does not lead out of its directory.
func TestFSConformsAndStaysInside(t *testing.T) {
	dir, files := tree(t)
	fsys := FS(dir)
	defer fsys.Close()
	require.NoError(t, fstest.TestFS(fsys, "a.txt", "sub/b.bin", "sub/deep/c.txt", "empty"))
	for name, data := range files {
		got, err := fsys.ReadFile(name)
		require.NoError(t, err, name)
		require.Equal(t, len(data), len(got), name)
		require.Equal(t, string(data), string(got), name)
	}
	sub, err := fsys.Sub("sub")
	require.NoError(t, err)
	got, err := fs.ReadFile(sub, "deep/c.txt")
	require.NoError(t, err)
	require.Equal(t, "gamma", string(got))
	require.NoError(t, sub.(*DirFS).Close())

	outside := filepath.Join(filepath.Dir(dir), "outside-"+filepath.Base(dir))
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o600))
	defer os.Remove(outside)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	for _, name := range []string{"../" + filepath.Base(outside), "/etc/passwd", "sub/../../x", "link"} {
		_, err := fsys.Open(name)
		require.Error(t, err, name)
		var pe *fs.PathError
		require.ErrorAs(t, err, &pe, name)
	}
	_, err = fsys.Open("missing")
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = FS(filepath.Join(dir, "no-such-dir")).Open("a.txt")
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// http.FileServer serves the FS: whole files and byte ranges come back
// byte-exact to Go's client and to curl.
func TestFSServedByHTTPFileServer(t *testing.T) {
	dir, files := tree(t)
	fsys := FS(dir)
	defer fsys.Close()
	srv := httptest.NewServer(http.FileServer(http.FS(fsys)))
	defer srv.Close()
	get := func(path, rng string) (int, []byte) {
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		require.NoError(t, err)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	b := files["sub/b.bin"]
	code, body := get("/sub/b.bin", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, b, body)
	code, body = get("/sub/b.bin", "bytes=1000-66535")
	require.Equal(t, http.StatusPartialContent, code)
	require.Equal(t, b[1000:66536], body)
	code, body = get("/sub/b.bin", "bytes=-10")
	require.Equal(t, http.StatusPartialContent, code)
	require.Equal(t, b[len(b)-10:], body)
	code, _ = get("/missing", "")
	require.Equal(t, http.StatusNotFound, code)
	code, body = get("/sub/", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, string(body), `<a href="b.bin">b.bin</a>`)

	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: the Go client's checks above ran")
	}
	for _, c := range []struct {
		rng  string
		want []byte
	}{{"", b}, {"5-70", b[5:71]}, {"69990-", b[69990:]}} {
		args := []string{"-sS", "--fail", "-o", "-"}
		if c.rng != "" {
			args = append(args, "-r", c.rng)
		}
		out, err := exec.Command(curl, append(args, srv.URL+"/sub/b.bin")...).Output()
		require.NoError(t, err, "curl -r %s", c.rng)
		require.Equal(t, c.want, out, fmt.Sprintf("curl -r %q", c.rng))
	}
}

// ReadAtBatch reads every op as ReadAt would: the bytes, io.EOF past the
// end, an error for a negative offset; and a closed file refuses it.
func TestReadAtBatch(t *testing.T) {
	const block, blocks = 4096, 32
	path, data := patterned(t, t.TempDir(), block, blocks)
	f, err := newRings(t, 1).Open(path)
	require.NoError(t, err)
	ops := make([]ReadOp, 40)
	for i := range ops {
		ops[i] = ReadOp{Buf: make([]byte, block), Off: int64(((i * 5) % blocks) * block)}
	}
	ops[3].Off = -1
	ops[7].Off = int64(len(data)) - 100 // 100 bytes, then EOF
	ops[9].Off = int64(len(data)) + 5   // past the end
	ops[11].Buf = nil
	require.NoError(t, f.ReadAtBatch(ops))
	for i, op := range ops {
		switch i {
		case 3:
			var pe *os.PathError
			require.ErrorAs(t, op.Err, &pe)
			require.Equal(t, "readat", pe.Op)
		case 7:
			require.ErrorIs(t, op.Err, io.EOF)
			require.Equal(t, 100, op.N)
			require.Equal(t, data[len(data)-100:], op.Buf[:100])
		case 9:
			require.ErrorIs(t, op.Err, io.EOF)
			require.Zero(t, op.N)
		case 11:
			require.NoError(t, op.Err)
			require.Zero(t, op.N)
		default:
			require.NoError(t, op.Err, "op %d", i)
			require.Equal(t, block, op.N)
			require.Equal(t, data[op.Off:op.Off+block], op.Buf, "op %d", i)
		}
	}
	require.NoError(t, f.Close())
	require.True(t, errors.Is(f.ReadAtBatch(ops[:2]), os.ErrClosed))
}
