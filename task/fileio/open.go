package fileio

import (
	"io"
	"os"
)

// Open opens name for reading on Default's rings, as os.Open.
func Open(name string) (*File, error) { return Default().Open(name) }

// OpenFile opens name on Default's rings, as os.OpenFile (flag may hold
// syscall.O_DIRECT: reads then skip the page-cache probe).
func OpenFile(name string, flag int, perm os.FileMode) (*File, error) {
	return Default().OpenFile(name, flag, perm)
}

// Create creates or truncates name on Default's rings, as os.Create.
func Create(name string) (*File, error) { return Default().Create(name) }

// ReadFile returns name's contents, read through Default's rings, as
// os.ReadFile.
func ReadFile(name string) ([]byte, error) { return Default().ReadFile(name) }

// WriteFile writes data to name through Default's rings, creating it
// with perm (before umask) or truncating it, as os.WriteFile.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return Default().WriteFile(name, data, perm)
}

// NewFile wraps of on Default's rings; the File then owns it.
func NewFile(of *os.File) *File { return Default().NewFile(of) }

// Open opens name for reading on r, as os.Open.
func (r *Rings) Open(name string) (*File, error) { return r.OpenFile(name, os.O_RDONLY, 0) }

// Create creates or truncates name on r, as os.Create.
func (r *Rings) Create(name string) (*File, error) {
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// OpenFile opens name on r, as os.OpenFile; its errors are os's
// (*os.PathError).
func (r *Rings) OpenFile(name string, flag int, perm os.FileMode) (*File, error) {
	of, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return r.NewFile(of), nil
}

// ReadFile returns name's contents, read through r, as os.ReadFile.
func (r *Rings) ReadFile(name string) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// readAll reads f from offset 0 to its end: sized by Stat, grown for
// files that report no size (procfs) or grow meanwhile.
func readAll(f *File) ([]byte, error) {
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = int(min(fi.Size(), maxRW))
	}
	if f.rings == nil {
		return io.ReadAll(f.of)
	}
	data := make([]byte, 0, size+1) // one more: EOF is seen without a grow
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.ReadAt(data[len(data):cap(data)], int64(len(data)))
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// WriteFile writes data to name through r, as os.WriteFile.
func (r *Rings) WriteFile(name string, data []byte, perm os.FileMode) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if f.rings != nil {
		_, err = f.WriteAt(data, 0)
	} else {
		_, err = f.of.Write(data) // a FIFO or device: os's write
	}
	if err1 := f.Close(); err1 != nil && err == nil {
		err = err1
	}
	return err
}
