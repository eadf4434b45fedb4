package shared

var sink float64

//go:noinline
func AcmeSharedBurn(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x += float64(i) * 0.25
	}
	sink = x
}
