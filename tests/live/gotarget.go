// SPDX-License-Identifier: MIT
// gotarget: the Go service of the classic question (pprof says little, ps
// says much). It reads a 16 MiB file four times, holding each copy, then
// drops three: 64 MiB allocated and touched, 48 MiB collected and returned
// to the kernel (debug.FreeOSMemory), 16 MiB kept. How it is returned
// depends on GODEBUG=madvdontneed: 0 MADV_FREE (stays in RSS as LazyFree),
// 1 MADV_DONTNEED (RSS drops). Prints "ready", then waits for standard
// input to close.
//
// With GOTARGET_PPROF=1 in its environment it is also the service pmaps
// explain reads the runtime's books of (tests/cli/books_go.py): it writes
// a JSON file of records, reads and unmarshals it four times and drops
// all but one copy (before the collection above), then turns the GC off
// (debug.SetGCPercent(-1): nothing is collected while a test compares
// figures, so HeapAlloc and TotalAlloc only grow), serves net/http/pprof
// on 127.0.0.1:0 and prints "pprof 127.0.0.1:PORT" before "ready". Then it
// answers commands on standard input, one line each, until it closes:
//
//	m  one JSON line of runtime.ReadMemStats's figures, read then
//	served  one JSON line of the figures the last /debug/pprof/heap reply
//	   it served carried (its runtime.MemStats block, as Go's own pprof
//	   wrote it), or {} before any
//	churn  starts a goroutine that swings the heap until standard input
//	   closes: 48 MiB allocated 1 MiB at a time over about 300 ms, each
//	   page touched, held 100 ms; then dropped, collected and returned
//	   (debug.FreeOSMemory), 100 ms low. Replies {"churning":true}
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

const fileSize = 16 << 20

var keep [][]byte

// makeFile writes fileSize bytes to a new file in the temporary directory.
func makeFile() (string, error) {
	f, err := os.CreateTemp("", "gotarget-*")
	if err != nil {
		return "", err
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for n := 0; n < fileSize && err == nil; n += len(chunk) {
		_, err = f.Write(chunk)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return f.Name(), err
}

// record is one element of the JSON file the pprof mode unmarshals.
type record struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	Score float64  `json:"score"`
}

var records [][]record

// unmarshalFile writes 40000 records as JSON (about 4 MiB), then reads and
// unmarshals the file four times, keeping the last copy only.
func unmarshalFile() error {
	rs := make([]record, 40000)
	for i := range rs {
		rs[i] = record{i, fmt.Sprintf("record-%06d", i), []string{"a", "bb", strconv.Itoa(i % 97)},
			float64(i) / 7}
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "gotarget-json-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	for i := 0; i < 4 && err == nil; i++ {
		var data []byte
		var got []record
		if data, err = os.ReadFile(f.Name()); err == nil {
			if err = json.Unmarshal(data, &got); err == nil {
				records = append(records, got)
			}
		}
	}
	if err == nil && len(records[0]) != len(rs) {
		err = fmt.Errorf("unmarshalled %d records of %d", len(records[0]), len(rs))
	}
	if err == nil {
		records = records[len(records)-1:]
	}
	return err
}

// memStats is the figures the tests compare, as runtime.MemStats names them.
type memStats struct {
	HeapAlloc, HeapSys, HeapIdle, HeapInuse, HeapReleased, HeapObjects uint64
	StackInuse, StackSys, MSpanInuse, MSpanSys, MCacheInuse, MCacheSys uint64
	BuckHashSys, GCSys, OtherSys, Sys, TotalAlloc, NextGC              uint64
	NumGC                                                              uint32
}

func fromRuntime(s *runtime.MemStats) memStats {
	return memStats{s.HeapAlloc, s.HeapSys, s.HeapIdle, s.HeapInuse, s.HeapReleased,
		s.HeapObjects, s.StackInuse, s.StackSys, s.MSpanInuse, s.MSpanSys, s.MCacheInuse,
		s.MCacheSys, s.BuckHashSys, s.GCSys, s.OtherSys, s.Sys, s.TotalAlloc, s.NextGC, s.NumGC}
}

// fromPage reads the runtime.MemStats block Go's pprof wrote at the end of a
// heap?debug=1 page: "# Name = N" and "# Name = N / M" lines.
func fromPage(page []byte) (memStats, bool) {
	i := bytes.LastIndex(page, []byte("\n# runtime.MemStats\n"))
	if i < 0 {
		return memStats{}, false
	}
	v := map[string][]uint64{}
	for _, line := range strings.Split(string(page[i+1:]), "\n") {
		kv := strings.SplitN(strings.TrimPrefix(line, "# "), " = ", 2)
		if len(kv) != 2 {
			continue
		}
		for _, f := range strings.Split(kv[1], " / ") {
			if n, err := strconv.ParseUint(f, 10, 64); err == nil {
				v[kv[0]] = append(v[kv[0]], n)
			}
		}
	}
	one := func(k string, i int) uint64 {
		if len(v[k]) > i {
			return v[k][i]
		}
		return 0
	}
	return memStats{one("HeapAlloc", 0), one("HeapSys", 0), one("HeapIdle", 0),
		one("HeapInuse", 0), one("HeapReleased", 0), one("HeapObjects", 0),
		one("Stack", 0), one("Stack", 1), one("MSpan", 0), one("MSpan", 1), one("MCache", 0),
		one("MCache", 1), one("BuckHashSys", 0), one("GCSys", 0), one("OtherSys", 0),
		one("Sys", 0), one("TotalAlloc", 0), one("NextGC", 0), uint32(one("NumGC", 0))}, true
}

// recorder keeps a copy of what a handler wrote.
type recorder struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.buf.Write(b)
	return r.ResponseWriter.Write(b)
}

var (
	servedMu sync.Mutex
	served   *memStats
)

// servePprof serves net/http/pprof on 127.0.0.1:0, keeping the MemStats of
// each heap page it serves; returns the address.
func servePprof() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	heap := pprof.Handler("heap")
	mux.HandleFunc("/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		heap.ServeHTTP(rec, r)
		if s, ok := fromPage(rec.buf.Bytes()); ok {
			servedMu.Lock()
			served = &s
			servedMu.Unlock()
		}
	})
	go func() { _ = http.Serve(l, mux) }()
	return l.Addr().String(), nil
}

// churn swings the heap between its 16 MiB and 64 MiB, over and over: 48
// MiB allocated a 1 MiB slice every 6 ms, each page touched as it comes
// (RSS climbing about 160 MiB a second), held 100 ms; then dropped,
// collected and returned at once (debug.FreeOSMemory), and 100 ms low.
func churn() {
	for {
		swing := make([][]byte, 0, 48)
		for i := 0; i < 48; i++ {
			b := make([]byte, 1<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = 1
			}
			swing = append(swing, b)
			time.Sleep(6 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		swing = nil
		debug.FreeOSMemory()
		time.Sleep(100 * time.Millisecond)
	}
}

func main() {
	withPprof := os.Getenv("GOTARGET_PPROF") == "1"
	name, err := makeFile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	for i := 0; i < 4 && err == nil; i++ {
		var b []byte
		if b, err = os.ReadFile(name); err == nil {
			keep = append(keep, b)
		}
	}
	os.Remove(name)
	if err == nil && withPprof {
		err = unmarshalFile()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	for i := 1; i < len(keep); i++ {
		keep[i] = nil
	}
	keep = keep[:1]
	runtime.GC()
	debug.FreeOSMemory()
	if !withPprof {
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		if len(keep[0]) != fileSize {
			os.Exit(1)
		}
		return
	}
	debug.SetGCPercent(-1)
	addr, err := servePprof()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	fmt.Printf("pprof %s\nready\n", addr)
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		switch in.Text() {
		case "m":
			var s runtime.MemStats
			runtime.ReadMemStats(&s)
			_ = out.Encode(fromRuntime(&s))
		case "churn":
			go churn()
			fmt.Println(`{"churning":true}`)
		case "served":
			servedMu.Lock()
			s := served
			servedMu.Unlock()
			if s == nil {
				fmt.Println("{}")
			} else {
				_ = out.Encode(*s)
			}
		default:
			fmt.Println(`{"error":"unknown command"}`)
		}
	}
	if len(keep[0]) != fileSize || len(records[0]) == 0 {
		os.Exit(1)
	}
}
