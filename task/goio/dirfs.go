package goio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// DirFS is the file system of the files under a directory, whose files
// are *File: their reads go through the runtime, as OpenFile's do. It is
// an fs.FS, fs.StatFS and fs.ReadDirFS, for http.FileServer(http.FS(d)),
// fs.WalkDir, template.ParseFS and the like. Names are fs.FS's (slash
// separated, unrooted, no "." or ".." elements); a symbolic link that
// leads out of the directory is refused, as os.Root refuses it.
type DirFS struct {
	e    *Env
	dir  string
	once sync.Once
	root *os.Root
	err  error
}

var (
	_ fs.FS        = (*DirFS)(nil)
	_ fs.StatFS    = (*DirFS)(nil)
	_ fs.ReadDirFS = (*DirFS)(nil)
)

// DirFS returns the file system of the files under dir on the runtime.
// The directory is opened on first use; an error opening it is each
// call's error.
func (e *Env) DirFS(dir string) *DirFS { return &DirFS{e: e, dir: dir} }

// rootFor checks name and opens the directory (once) for method fn.
func (d *DirFS) rootFor(fn, op, name string) (*os.Root, error) {
	if d == nil || d.e == nil {
		return nil, nilReceiver("DirFS." + fn)
	}
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	d.once.Do(func() { d.root, d.err = os.OpenRoot(d.dir) })
	if d.err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: d.err}
	}
	return d.root, nil
}

// Open opens name for reading; the fs.File is a *File.
func (d *DirFS) Open(name string) (fs.File, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpenFile is Open returning the *File.
func (d *DirFS) OpenFile(name string) (*File, error) {
	root, err := d.rootFor("OpenFile", "open", name)
	if err != nil {
		return nil, err
	}
	of, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	// The directory's path in the name: a listing's DirEntry.Info stats
	// the entries by it.
	return d.e.adopt(of, filepath.Join(d.dir, filepath.FromSlash(name)))
}

// Stat returns name's FileInfo without opening it through the runtime.
func (d *DirFS) Stat(name string) (fs.FileInfo, error) {
	root, err := d.rootFor("Stat", "stat", name)
	if err != nil {
		return nil, err
	}
	return root.Stat(name)
}

// ReadDir lists the directory name, sorted by file name.
func (d *DirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, rename(err, "readdir", name)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, rename(err, "readdir", name)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// rename gives a *fs.PathError the op and the fs.FS name of the call.
func rename(err error, op, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return err
}
