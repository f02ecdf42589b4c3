"""Where the deploy publishes each notebook page's ``.ipynb``, and the Colab
address that opens it: one definition for the page's link (:mod:`.launch`) and
for the workflow that writes the files (``tools/publish_notebooks.py``).

Colab opens a notebook from a GitHub path,
``https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH``
(the address googlecolab/open_in_colab's extension redirects a GitHub notebook
page to). The setting ``trtdocs_published_notebooks`` names the repository and
branch as ``OWNER/REPO@BRANCH``; it has no default, so a fork links to no one
else's notebooks. Within the branch, a page's notebook lives under the release
the site documents (``2.14/notebooks/install.ipynb``), so the address of one
release's notebook stays the same while newer releases are published beside it.

Standard library only: the workflow's job that pushes the branch imports it
without the docs' venv.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import PurePosixPath

SETTING = "trtdocs_published_notebooks"
ENV = "TRTDOCS_PUBLISHED_NOTEBOOKS"
COLAB = "https://colab.research.google.com/github"
GITHUB = "https://github.com"
# GitHub's names: an owner of letters, digits and single hyphens; a repository of
# letters, digits, '.', '-' and '_'; a branch as git check-ref-format allows, without
# the characters a URL path would need escaped.
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]{1,100}"
_BRANCH = r"[A-Za-z0-9._/-]{1,200}"
_TARGET = re.compile(rf"(?P<owner>{_NAME})/(?P<repo>{_REPO})@(?P<branch>{_BRANCH})")
FORM = "OWNER/REPO@BRANCH"


class TargetError(ValueError):
    """A value of the setting that is not ``OWNER/REPO@BRANCH``."""


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    """The repository and branch the notebooks are published to."""

    owner: str
    repo: str
    branch: str

    @classmethod
    def parse(cls, text: str) -> Target:
        match = _TARGET.fullmatch(text.strip())
        branch = match["branch"] if match else ""
        if (
            match is None
            or match["repo"] in (".", "..")
            or branch.startswith(("/", "-"))
            or branch.endswith(("/", ".", ".lock"))
            or ".." in branch
            or "//" in branch
        ):
            raise TargetError(f"{text!r} is not {FORM} (a GitHub repository and a branch of it)")
        return cls(match["owner"], match["repo"], branch)

    @classmethod
    def of(cls, text: str) -> Target | None:
        """The target of a setting's value; None when it is empty (not published)."""
        return cls.parse(text) if text.strip() else None

    @property
    def repository(self) -> str:
        """``OWNER/REPO``, as GitHub's ``github.repository`` names it."""
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.repository}@{self.branch}"

    def colab_url(self, path: str) -> str:
        """The address that opens the notebook at ``path`` of the branch in Colab."""
        return f"{COLAB}/{self.repository}/blob/{self.branch}/{path}"

    def github_url(self, path: str) -> str:
        """The notebook at ``path`` of the branch, on GitHub."""
        return f"{GITHUB}/{self.repository}/blob/{self.branch}/{path}"

    def remote(self) -> str:
        """The repository's address for git."""
        return f"{GITHUB}/{self.repository}.git"


def published_path(release: str, docname: str) -> str:
    """Where page ``docname``'s notebook lies in the published branch:
    ``<release>/<docname>.ipynb``, the release being the one the site documents."""
    path = PurePosixPath(release, f"{docname}.ipynb")
    if path.is_absolute() or ".." in path.parts or not release or "/" in release:
        raise ValueError(f"no published path for release {release!r}, page {docname!r}")
    return path.as_posix()
