// Package channel declares, sends on, receives from and ranges over
// channels.
package channel

var ready chan int // want channel

func Uses(in <-chan string) int { // want channel
	c := make(chan bool, 1) // want channel
	c <- true               // want channel
	<-c                     // want channel
	s, ok := <-in           // want channel
	n := len(s)
	for range in { // want channel
		n++
	}
	if ok {
		n++
	}
	return n
}
