package policy_test

import (
	"fmt"

	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
)

// A fresh linear policy is uniform over the valid actions; one gradient
// ascent step on log π(delegate) makes delegating more likely.
func ExampleNewLinear() {
	p := policy.NewLinear()
	obs := c.Observation{Main: true, Ready: 3, Free: 2, TimeUsed: 0.25, Elapsed: 30}
	mask := c.Mask(0).With(c.Work).With(c.Delegate).With(c.Submit)

	var x [policy.NumFeatures]float64
	policy.Features(&obs, &x)
	var probs [c.NumActions]float64
	p.Probs(&x, mask, &probs)
	fmt.Printf("initial: work %.3f delegate %.3f wait %.3f submit %.3f\n",
		probs[c.Work], probs[c.Delegate], probs[c.Wait], probs[c.Submit])

	grad := make([]float64, len(p.Params()))
	logp, entropy := p.AddGrad(policy.Term{X: &x, Mask: mask, Action: c.Delegate, Scale: 1}, grad)
	fmt.Printf("log π(delegate) %.3f, entropy %.3f\n", logp, entropy)
	for i, g := range grad {
		p.Params()[i] += 0.5 * g
	}
	p.Probs(&x, mask, &probs)
	fmt.Printf("after one step: work %.3f delegate %.3f wait %.3f submit %.3f\n",
		probs[c.Work], probs[c.Delegate], probs[c.Wait], probs[c.Submit])
	fmt.Println("u=0.2 decides", p.Decide(&obs, mask, 0.2))
	// Output:
	// initial: work 0.333 delegate 0.333 wait 0.000 submit 0.333
	// log π(delegate) -1.099, entropy 1.099
	// after one step: work 0.083 delegate 0.834 wait 0.000 submit 0.083
	// u=0.2 decides delegate
}
