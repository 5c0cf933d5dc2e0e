#!/usr/bin/env python3
"""RLCR in PyTorch through swarmsim's VecEnv: reinforce_numpy.py with the
update written in torch (autograd, torch.optim.Adam, clip_grad_norm_).

The rollouts, the group advantage and the output are reinforce_numpy.py's;
only the learner differs, which is what a researcher brings: the surrogate
sum_d w_d (A_d log pi(a_d|x_d) + beta H(pi(.|x_d))) as a loss, differentiated
by autograd. Debian's python3-torch (apt-get install -y python3-torch) is
enough; not part of CI (the numpy example is, through its tests).

    PYTHONPATH=python /usr/bin/python3 python/examples/reinforce_torch.py --seeds 1-10 --out /tmp/torch.csv
"""

import torch

from reinforce_numpy import linear, main


class TorchLearner:
    """A linear softmax policy as a torch module, updated by torch's Adam."""

    def __init__(self, num_actions, num_features, args):
        self.args = args
        self.policy = torch.nn.Linear(num_features, num_actions, bias=False).double()
        torch.nn.init.zeros_(self.policy.weight)
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8)

    def theta(self):
        """The parameters as numpy, for sampling during rollouts."""
        return self.policy.weight.detach().numpy()

    def update(self, batch, adv, it):
        a = self.args
        x, mask, act, row = (torch.from_numpy(v) for v in batch[:4])
        logits = self.policy(x).masked_fill(~mask, float("-inf"))
        logp = torch.log_softmax(logits, dim=1)
        entropy = -(logp.exp() * logp.masked_fill(~mask, 0.0)).sum(dim=1)
        beta = linear(a.entropy, a.entropy_end, it, a.iterations)
        adv_d = torch.from_numpy(adv)[row]
        surrogate = (adv_d * logp[torch.arange(len(act)), act] + beta * entropy).sum() / batch.count
        self.opt.zero_grad()
        (-surrogate).backward()
        if a.clip_grad > 0:
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), a.clip_grad)
        for g in self.opt.param_groups:
            g["lr"] = linear(a.lr, a.lr_end, it, a.iterations)
        self.opt.step()


if __name__ == "__main__":
    torch.set_num_threads(1)
    main(TorchLearner)
