package testutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// File is what FileCallsLikeOS calls: *os.File's methods that a file type
// meant to behave like it has.
type File interface {
	io.ReadWriteSeeker
	io.ReaderAt
	io.WriterAt
	Close() error
	Sync() error
	Truncate(int64) error
	Stat() (os.FileInfo, error)
	ReadDir(int) ([]os.DirEntry, error)
}

// FileCallsLikeOS checks that every call on a file that open opens
// answers what *os.File's answers (the count, the error and its text but
// for the file's name, the offset after), for a directory and for a file
// opened read-only, write-only, read-write, truncated and appending, from
// the first read to the calls after a second Close: reads at and past the
// end, empty reads and writes (os's Write writes even nothing and reports
// a file not open for writing; an empty ReadAt or WriteAt makes no call),
// WriteAt (refused when appending), Seek, ReadDir, Truncate, Sync, Stat.
func FileCallsLikeOS(t *testing.T, open func(name string, flags int) (File, error)) {
	t.Helper()
	str := func(v ...any) string { return fmt.Sprint(v...) }
	steps := []struct {
		name string
		call func(f File) string
	}{
		{"read", func(f File) string { b := make([]byte, 4); n, err := f.Read(b); return str(n, err, string(b[:n])) }},
		{"readat past the end", func(f File) string { n, err := f.ReadAt(make([]byte, 20), 3); return str(n, err) }},
		{"readat beyond", func(f File) string { n, err := f.ReadAt(make([]byte, 2), 100); return str(n, err) }},
		{"empty readat", func(f File) string { n, err := f.ReadAt(nil, 0); return str(n, err) }},
		{"writeat", func(f File) string { n, err := f.WriteAt([]byte("Q"), 1); return str(n, err) }},
		{"write", func(f File) string { n, err := f.Write([]byte("XX")); return str(n, err) }},
		{"empty write", func(f File) string { n, err := f.Write(nil); return str(n, err) }},
		{"empty writeat", func(f File) string { n, err := f.WriteAt(nil, 1); return str(n, err) }},
		{"seek to the end", func(f File) string { n, err := f.Seek(0, io.SeekEnd); return str(n, err) }},
		{"read at the end", func(f File) string { n, err := f.Read(make([]byte, 4)); return str(n, err) }},
		{"empty read at the end", func(f File) string { n, err := f.Read(nil); return str(n, err) }},
		{"readdir", func(f File) string { d, err := f.ReadDir(-1); return str(len(d), err) }},
		{"truncate", func(f File) string { return str(f.Truncate(3)) }},
		{"sync", func(f File) string { return str(f.Sync()) }},
		{"stat", func(f File) string {
			st, err := f.Stat()
			if err != nil {
				return str(err)
			}
			return str(st.Size(), st.Mode(), st.IsDir())
		}},
		{"close", func(f File) string { return str(f.Close()) }},
		{"second close", func(f File) string { return str(f.Close()) }},
		{"read after close", func(f File) string { n, err := f.Read(make([]byte, 4)); return str(n, err) }},
		{"readat after close", func(f File) string { n, err := f.ReadAt(make([]byte, 4), 0); return str(n, err) }},
		{"empty read after close", func(f File) string { n, err := f.Read(nil); return str(n, err) }},
		{"empty readat after close", func(f File) string { n, err := f.ReadAt(nil, 0); return str(n, err) }},
		{"write after close", func(f File) string { n, err := f.Write([]byte("a")); return str(n, err) }},
		{"writeat after close", func(f File) string { n, err := f.WriteAt([]byte("a"), 0); return str(n, err) }},
		{"empty writeat after close", func(f File) string { n, err := f.WriteAt(nil, 0); return str(n, err) }},
		{"seek after close", func(f File) string { n, err := f.Seek(0, io.SeekStart); return str(n, err) }},
		{"stat after close", func(f File) string { _, err := f.Stat(); return str(err) }},
		{"sync after close", func(f File) string { return str(f.Sync()) }},
		{"truncate after close", func(f File) string { return str(f.Truncate(1)) }},
	}
	dir := t.TempDir()
	opens := map[string]int{"directory": os.O_RDONLY, "read-only": os.O_RDONLY, "write-only": os.O_WRONLY,
		"read-write": os.O_RDWR, "truncated": os.O_RDWR | os.O_TRUNC, "appending": os.O_WRONLY | os.O_APPEND}
	for what, flags := range opens {
		names := [2]string{filepath.Join(dir, "os-"+what), filepath.Join(dir, "tested-"+what)}
		for _, name := range names {
			if what == "directory" {
				require.NoError(t, os.Mkdir(name, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(name, "entry"), nil, 0o644))
			} else {
				require.NoError(t, os.WriteFile(name, []byte("hello world"), 0o644))
			}
		}
		of, err := os.OpenFile(names[0], flags, 0)
		require.NoError(t, err)
		defer of.Close()
		tf, err := open(names[1], flags)
		require.NoError(t, err)
		defer tf.Close()
		for _, s := range steps {
			want := strings.ReplaceAll(s.call(of), names[0], names[1])
			require.Equal(t, want, s.call(tf), "%s file: %s", what, s.name)
			opos, oerr := of.Seek(0, io.SeekCurrent)
			tpos, terr := tf.Seek(0, io.SeekCurrent)
			require.Equal(t, opos, tpos, "%s file: the offset after %s", what, s.name)
			require.Equal(t, oerr == nil, terr == nil, "%s file: the offset after %s", what, s.name)
		}
		contents := func(name string) string {
			b, _ := os.ReadFile(name)
			return string(b)
		}
		require.Equal(t, contents(names[0]), contents(names[1]), "%s file: what it holds", what)
	}
}
