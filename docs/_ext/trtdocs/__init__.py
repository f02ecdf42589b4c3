"""Sphinx extension of the Torch-TensorRT on ExecuTorch deployment guide.

Its parts are Sphinx extensions of their own, which conf.py lists by name;
docs/building.md ("Where the build's code lives") says what each does and
where to change what.
"""
