"""Drift guards: the guide's install commands, API calls and C++ snippets,
checked against the packages they name and the features table
(:mod:`trtdocs.features.model`, the one model of ``docs/features.toml``).

* :mod:`.installs`: install commands in the pages (found and parsed by
  :mod:`trtdocs.pages.commands`),
  rules in one frozen table, and the commands the site generates;
* :mod:`.pypi`: the documented release's requirements resolved against PyPI's metadata;
* :mod:`.resolve`, :mod:`.resolved`: every install command on the pages resolved by pip's
  resolver, its versions checked against the pins (once a day in the build, ``make installs``);
* :mod:`.api`: names and keywords notebook cells use, checked against the installed API
  (:mod:`trtdocs.api.uses`, griffe, no import);
* :mod:`.options`: the ``save()`` options table of docs/data against the installed ``save()``;
* :mod:`.cpp`: every C++ block compiled against the headers of :mod:`.headers` (the
  packages' real headers, ``TRTDOCS_CXX_INCLUDE``'s, then declaration stubs for the ones
  no package carries, ``stubs/``), CMake parsed; :mod:`.captions` says under each block
  what it was compiled against, or why not;
* :mod:`.marks`: guard marks sit on MyST comment lines above a block, never in code;
* :mod:`.programs`: a file one page hands to a later page is written first, in ``programs/``;
* :mod:`.evidence`: the evidence register (``docs/evidence/<page>.toml``) against its pages;
* :mod:`.raises`: the failure register (``docs/evidence/failures.toml``): the installed sources'
  errors on the guide's calls, each found in its file and named by the guide or left out;
* :mod:`.sphinx`: a build hook that reports every violation as a warning with file and line;
* :mod:`.memo`: what the hook's guards remember between builds (each page's findings).

The guards read the pages through :mod:`trtdocs.pages` and return its
:class:`~trtdocs.pages.Violation` objects; ``python -m trtdocs.drift`` prints them.
"""

from __future__ import annotations


def setup(app):  # Sphinx's entry point: .sphinx.setup
    from .sphinx import setup as _setup

    return _setup(app)
