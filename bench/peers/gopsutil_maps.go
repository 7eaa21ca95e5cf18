// SPDX-License-Identifier: MIT
// gopsutil_maps: time gopsutil's MemoryMaps on one process, in process.
//
//	gopsutil_maps PID REPS grouped(0|1)
//
// Prints: median ms per call, MB allocated per call, allocations per call.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/shirou/gopsutil/process"
)

func main() {
	pid, _ := strconv.Atoi(os.Args[1])
	reps, _ := strconv.Atoi(os.Args[2])
	grouped := os.Args[3] == "1"
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := p.MemoryMaps(grouped); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var times []float64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		if _, err := p.MemoryMaps(grouped); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		times = append(times, float64(time.Since(t0).Nanoseconds())/1e6)
	}
	runtime.ReadMemStats(&after)
	sort.Float64s(times)
	fmt.Printf("%.3f %.1f %d\n", times[len(times)/2],
		float64(after.TotalAlloc-before.TotalAlloc)/float64(reps)/1e6,
		(after.Mallocs-before.Mallocs)/uint64(reps))
}
