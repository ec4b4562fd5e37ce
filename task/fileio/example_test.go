package fileio_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring/task/fileio"
)

// Many goroutines read one file at random offsets, as they would with
// *os.File: no set-up, no runtime to start.
func Example() {
	dir, err := os.MkdirTemp("", "fileio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "data")
	if err := fileio.WriteFile(name, make([]byte, 8192), 0o644); err != nil {
		log.Fatal(err)
	}
	total, err := readAtRandom(name)
	fmt.Println(total, err)
	// Output: 524288 <nil>
}

// readAtRandom is the README's quick start for goroutine code (its body
// is the README's snippet, byte for byte; TestREADMESnippets checks it).
func readAtRandom(name string) (int64, error) {
	f, err := fileio.Open(name) // as os.Open: no runtime, no set-up
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total atomic.Int64
	var wg sync.WaitGroup
	for g := range 128 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			n, err := f.ReadAt(buf, int64(g%2)*4096) // as (*os.File).ReadAt
			if err != nil && err != io.EOF {
				log.Print(err)
			}
			total.Add(int64(n))
		}()
	}
	wg.Wait()
	return total.Load(), nil
}

// FS serves a directory with http.FileServer; ranges work.
func ExampleFS() {
	dir, err := os.MkdirTemp("", "fileio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	fsys := fileio.FS(dir)
	defer fsys.Close()
	srv := httptest.NewServer(http.FileServer(http.FS(fsys)))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/hello.txt", nil)
	req.Header.Set("Range", "bytes=7-11")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 206 world
}

// ReadAtBatch submits many reads in one io_uring_enter and waits for all.
func ExampleFile_ReadAtBatch() {
	dir, err := os.MkdirTemp("", "fileio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "abc")
	if err := os.WriteFile(name, []byte("aaaabbbbcccc"), 0o644); err != nil {
		log.Fatal(err)
	}
	f, err := fileio.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ops := []fileio.ReadOp{
		{Buf: make([]byte, 4), Off: 8},
		{Buf: make([]byte, 4), Off: 0},
		{Buf: make([]byte, 4), Off: 4},
	}
	if err := f.ReadAtBatch(ops); err != nil {
		log.Fatal(err)
	}
	for _, op := range ops {
		fmt.Println(op.N, string(op.Buf), op.Err)
	}
	// Output:
	// 4 cccc <nil>
	// 4 aaaa <nil>
	// 4 bbbb <nil>
}
