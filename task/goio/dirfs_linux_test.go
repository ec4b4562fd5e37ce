//go:build linux

package goio

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// DirFS passes testing/fstest's checks (Open, Stat, ReadDir, the files'
// Read, Seek, ReadAt and ReadDir, fs.WalkDir); its files are the
// runtime's *File; a name fs.FS refuses, and a symbolic link out of the
// directory, are refused.
func TestDirFS(t *testing.T) {
	rt := newRuntime(t, 2)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	// Small: fstest reads it a byte or two at a time, and where the page
	// cache shortcut is missing (tmpfs before 6.x: no RWF_NOWAIT) each read
	// is a task's hop to an executor and back (300 KiB took minutes under
	// qemu TCG). The big file comes after fstest.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b.bin"), []byte("bravo, a file in a directory"), 0o644))
	d := On(rt).DirFS(dir)
	require.NoError(t, fstest.TestFS(d, "a.txt", "sub", "sub/b.bin"))
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "big.bin"), big, 0o644))
	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "escape")))

	f, err := d.Open("sub/big.bin")
	require.NoError(t, err)
	_, ok := f.(*File)
	require.True(t, ok, "DirFS's files are the runtime's *File, got %T", f)
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, big, got)
	require.NoError(t, f.Close())

	_, err = d.Open("../a.txt")
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = d.Open("escape")
	require.Error(t, err, "a link out of the directory opened")
	var pe *fs.PathError
	require.True(t, errors.As(err, &pe), "%T", err)
	_, err = d.Open("none")
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = On(rt).DirFS(filepath.Join(dir, "missing")).Open("a.txt")
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// http.FileServer serves DirFS: a file whole, a range, a listing.
func TestDirFSFileServer(t *testing.T) {
	rt := newRuntime(t, 1)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, runtime"), 0o644))
	srv := httptest.NewServer(http.FileServer(http.FS(On(rt).DirFS(dir))))
	defer srv.Close()
	get := func(path, rng string) (int, string) {
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		require.NoError(t, err)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get("/hello.txt", "")
	require.Equal(t, 200, code)
	require.Equal(t, "hello, runtime", body)
	code, body = get("/hello.txt", "bytes=7-13")
	require.Equal(t, 206, code)
	require.Equal(t, "runtime", body)
	code, body = get("/", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `<a href="hello.txt">hello.txt</a>`)
	code, _ = get("/missing", "")
	require.Equal(t, 404, code)
}
