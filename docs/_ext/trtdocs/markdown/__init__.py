"""The guide in Markdown: one exporter with two readers, for the two places the
site offers a page as Markdown. Each directive, role and node means one thing
in Markdown (:mod:`.meanings`), written in one way (:mod:`.forms`):

* :mod:`.meanings`: the one list of what each piece of MyST markup, and each
  node the site's extensions make, becomes in Markdown (pure);
* :mod:`.forms`: the Markdown of each form: a quote, a fence, a label, a diagram (pure);
* :mod:`.source`: a notebook's MyST source as Markdown, for its downloads
  (``trtdocs.notebooks.downloads`` writes them);
* :mod:`.doctree`: a resolved page as Markdown, its twin (``trtdocs.llms`` writes them);
* :mod:`.leftovers`: MyST markup left in what either wrote (pure).

A library of the parts: it has no ``setup()`` and imports neither of the
packages that write its output.
"""
