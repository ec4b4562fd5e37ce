//go:build linux

package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cNopSource is the C peer of the nop workload: the same loop as nopRing
// on liburing (batches of B NOPs, io_uring_submit_and_wait, reap), timed
// for a duration; it prints ns per NOP.
const cNopSource = `#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 3) { fprintf(stderr, "usage: nop BATCH SECONDS\n"); return 2; }
	int batch = atoi(argv[1]);
	double secs = atof(argv[2]);
	unsigned entries = 8;
	while (entries < (unsigned)batch) entries *= 2;
	struct io_uring ring;
	int ret = io_uring_queue_init(entries, &ring, 0);
	if (ret < 0) { fprintf(stderr, "io_uring_queue_init: %d\n", ret); return 1; }
	int chunk = 1024 / batch; if (chunk < 1) chunk = 1;
	long ops = 0;
	double start = now(), el;
	for (;;) {
		for (int k = 0; k < chunk; k++) {
			for (int i = 0; i < batch; i++) io_uring_prep_nop(io_uring_get_sqe(&ring));
			ret = io_uring_submit_and_wait(&ring, batch);
			if (ret < 0) { fprintf(stderr, "submit: %d\n", ret); return 1; }
			struct io_uring_cqe *cqe; unsigned head, n = 0;
			io_uring_for_each_cqe(&ring, head, cqe) n++;
			io_uring_cq_advance(&ring, n);
			ops += n;
		}
		el = now() - start;
		if (el >= secs) break;
	}
	printf("%.3f\n", el * 1e9 / ops);
	return 0;
}
`

// peerBuild builds a peer program once per process, into a temp dir of
// its own (left in os.TempDir; removed when the build fails).
type peerBuild struct {
	once sync.Once
	bin  string
	err  error
}

// get returns the program build made in a new dir named prefix*, building
// it on the first call; the error says why it cannot be had.
func (p *peerBuild) get(prefix string, build func(dir string) (string, error)) (string, error) {
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			p.err = err
			return
		}
		if p.bin, p.err = build(dir); p.err != nil {
			os.RemoveAll(dir)
		}
	})
	return p.bin, p.err
}

var cNop peerBuild

// cNopProgram builds the C peer once per process into a temp dir; an error
// says why it cannot (no gcc, no liburing headers).
func cNopProgram() (string, error) {
	return cNop.get("uring-bench-cnop-", func(dir string) (string, error) {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			return "", errors.New("gcc not installed")
		}
		src := filepath.Join(dir, "nop.c")
		if err := os.WriteFile(src, []byte(cNopSource), 0o600); err != nil {
			return "", err
		}
		bin := filepath.Join(dir, "nop")
		if out, err := exec.Command(gcc, "-O2", "-o", bin, src, "-luring").CombinedOutput(); err != nil {
			return "", fmt.Errorf("building it failed (liburing-dev installed?): %s", firstLine(string(out)))
		}
		return bin, nil
	})
}

func runCNop(bin string, b int, d time.Duration) (sample, error) {
	out, err := exec.Command(bin, strconv.Itoa(b), strconv.FormatFloat(d.Seconds(), 'f', 3, 64)).Output()
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", bin, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		return sample{}, fmt.Errorf("C nop printed %q", out)
	}
	return sample{v: v}, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
