"""Every ``trtdocs_*`` setting, declared once, as sphinx-design's ``SdConfig`` does.

:class:`TrtdocsConfig` names each setting with its type, default, the
environment variable its default comes from (the Makefile's variables), its
check and its help. :func:`setup` registers them all (every sub-extension
asks for it with ``app.setup_extension("trtdocs.config")``); :func:`of` gives
a build's values as one typed object, checked at ``config-inited``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError

from .colab import FORM, Target, TargetError

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

PREFIX = "trtdocs_"
# The data files beside this extension (docs/data), so that any site built with it
# (the tests' fixture sites too) reads the same; relative values are from the confdir.
_DATA = Path(__file__).resolve().parents[2] / "data"


def _flag(text: str) -> bool:
    return text not in ("", "0")


def _days(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError("must be a number of days") from None


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("must be a whole number") from None


def _count_value(value: Any) -> str | None:
    return None if isinstance(value, int) and value >= 0 else "must be 0 or more"


def _number(value: Any) -> str | None:
    return (
        None
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else "must be a number"
    )


def _strings(value: Any) -> str | None:
    ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    return None if ok else "must be a list of strings"


def _published(value: Any) -> str | None:
    try:
        Target.of(value)
    except TargetError as exc:
        return str(exc)
    return None


def setting(
    default: Any,
    help: str,
    *,
    rebuild: str = "env",
    env: str = "",
    parse: Callable[[str], Any] = str,
    check: Callable[[Any], str | None] | None = None,
) -> Any:
    """A field of :class:`TrtdocsConfig`: its default, what it means, the Sphinx
    rebuild kind, and the environment variable (read by ``parse``) that sets the
    default when conf.py and ``-D`` leave it alone."""
    metadata = {"help": help, "rebuild": rebuild, "env": env, "parse": parse, "check": check}
    if isinstance(default, list):
        return dataclasses.field(default_factory=lambda: list(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrtdocsConfig:
    """The extension's settings (``trtdocs_<name>`` in conf.py)."""

    # -- notebook execution and gating (trtdocs.notebooks)
    require_all: bool = setting(
        False,
        "fail the build if a cell was not executed that the installed "
        "release can run (a cell that needs a newer release is marked)",
        rebuild="",
        env="REQUIRE_ALL",
        parse=_flag,
    )
    require_outputs: bool = setting(
        False,
        "fail the build if a page has neither its execution nor a fresh record",
        rebuild="",
        env="REQUIRE_OUTPUTS",
        parse=_flag,
    )
    record: bool = setting(
        False,
        "write a record of each notebook this build executes as far as "
        "its release can (the record lists the cells a newer release needs)",
        rebuild="",
        env="TRTDOCS_RECORD",
        parse=_flag,
    )
    record_dir: str = setting(
        "notebooks/_recorded", "where records are read from (from the source root)"
    )
    record_out: str = setting(
        "",
        'where `make record` writes records; "" = record_dir',
        rebuild="",
        env="TRTDOCS_RECORD_OUT",
    )
    record_max_age_days: float = setting(
        90.0,
        "days after which a record expires; 0 = never",
        env="TRTDOCS_RECORD_MAX_AGE_DAYS",
        parse=_days,
        check=_number,
    )
    disable: str = setting(
        "",
        "requirements treated as unmet (comma-separated), to test the gating",
        env="TRTDOCS_DISABLE",
    )
    notebooks: str = setting(
        "",
        'the notebooks this build executes (names, spaces or commas); "" = every notebook',
        env="TRTDOCS_NOTEBOOKS",
    )
    jobs: int = setting(
        0,
        "notebooks executed at once; 0 = one per CPU core",
        rebuild="",
        env="TRTDOCS_JOBS",
        parse=_count,
        check=_count_value,
    )
    run_dir: str = setting(
        "",
        "the folder every notebook runs in, as a reader's folder: programs/ holds "
        'what a page hands on (from the confdir); "" = run/ beside the output folder',
        rebuild="",
    )
    import_roots: list[str] = setting(
        ["notebooks"],
        "folders (from the source root) whose modules a "
        "notebook may import; a change in one re-executes it",
        check=_strings,
    )
    # "html": every notebook page's launch row links there
    published_notebooks: str = setting(
        "",
        f'the GitHub repository and branch the deploy publishes the notebooks to, "{FORM}": '
        'each notebook page links to its notebook there in Colab; "" = no such links',
        rebuild="html",
        env="TRTDOCS_PUBLISHED_NOTEBOOKS",
        check=_published,
    )
    # -- the features table (trtdocs.features)
    features_file: str = setting("docs/features.toml", "the features table (from the confdir)")
    documented_release: str = setting(
        "", 'the release the notes are worded for; "" = the table\'s `documented`'
    )
    # -- the API reference (trtdocs.api)
    api_data_file: str = setting(
        str(_DATA / "api.toml"), "options, features and upstream labels of the API reference"
    )
    api_errata_file: str = setting(
        str(_DATA / "api-errata.toml"), "notes on wrong docstring sentences"
    )
    api_links_file: str = setting(
        str(_DATA / "api-links.toml"),
        "upstream pages of names the code calls, and the names left unlinked with the reason",
    )
    api_search_paths: list[str] = setting(
        [],
        "folders griffe reads the packages from; [] = this interpreter's site-packages",
        check=_strings,
    )
    # -- tables of data files (trtdocs.datatables)
    data_dir: str = setting(
        "docs/data", "the folder of the {data-table} files (from the source root)"
    )
    # -- the site as readers use it (trtdocs.site)
    maintainer_docs: list[str] = setting(
        [],
        "pages for maintainers of the site: out of the readers' "
        "prev/next chain, ranked below guide pages in search",
        rebuild="html",
        check=_strings,
    )
    # -- drift guards (trtdocs.drift)
    # "html": the banners say what the guards check, so pages are written again
    drift: bool = setting(True, "run the drift guards in the build", rebuild="html")
    # the banners say how each install command resolved: pages are written again
    resolve_installs: bool = setting(
        True,
        "resolve each install command on the pages with pip's resolver "
        "(the network; an index that does not answer is marked, not failed)",
        rebuild="html",
        env="TRTDOCS_RESOLVE",
        parse=_flag,
    )
    resolve_cache: str = setting(
        "",
        'where the day\'s resolutions are kept (from the confdir); "" = '
        "trtdocs/resolve beside the output folder",
        rebuild="",
        env="TRTDOCS_RESOLVE_CACHE",
    )
    # "html": each C++ block's caption names the headers it compiled against
    cxx_include: str = setting(
        "",
        "folders of real C++ headers (os.pathsep-separated) the C++ guard "
        "searches after the packages' and before its stubs",
        rebuild="html",
        env="TRTDOCS_CXX_INCLUDE",
    )
    cxx_stubs: bool = setting(
        True,
        "compile C++ blocks with the declaration stubs (drift/stubs) for "
        "headers no folder has; off: such a header fails its block",
        rebuild="html",
        env="TRTDOCS_CXX_STUBS",
        parse=_flag,
    )


FIELDS: tuple[dataclasses.Field, ...] = dataclasses.fields(TrtdocsConfig)


def _initial(field: dataclasses.Field) -> Any:
    """The field's declared default (from its factory, for a list or a dict)."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    raise ConfigError(f"{PREFIX}{field.name} declares no default")


def _default(field: dataclasses.Field) -> Any:
    """The field's default; its environment variable's value when that is set."""
    name = field.metadata["env"]
    text = os.environ.get(name, "") if name else ""
    if not text:
        return _initial(field)
    try:
        return field.metadata["parse"](text)
    except ValueError as exc:
        raise ConfigError(f"{name} {exc}, not {text!r}") from None


def from_environment(name: str) -> Any:
    """Setting ``name``'s value where no Sphinx config exists (the drift guards' own
    process): its default, or its environment variable's value."""
    return _default(next(f for f in FIELDS if f.name == name))


def environment_name(name: str) -> str:
    """The environment variable of setting ``name``."""
    return next(f for f in FIELDS if f.name == name).metadata["env"]


def of(config: Config) -> TrtdocsConfig:
    """This build's values, typed."""
    return TrtdocsConfig(**{f.name: getattr(config, PREFIX + f.name) for f in FIELDS})


def check(app: Sphinx, config: Config) -> None:
    """At config-inited: every value has its type and passes its check."""
    for field in FIELDS:
        value = getattr(config, PREFIX + field.name)
        types = _types(field)
        problem = (
            None
            if isinstance(value, types)
            else f"must be {' or '.join(t.__name__ for t in types)}"
        )
        if problem is None and field.metadata["check"] is not None:
            problem = field.metadata["check"](value)
        if problem:
            raise ConfigError(
                f"{PREFIX}{field.name} = {value!r}: {problem} ({field.metadata['help']})"
            )


def _types(field: dataclasses.Field) -> tuple[type, ...]:
    default = _initial(field)
    return (int, float) if isinstance(default, float) else (type(default),)


def setup(app: Sphinx) -> ExtensionMetadata:
    for field in FIELDS:
        app.add_config_value(
            PREFIX + field.name,
            _default(field),
            field.metadata["rebuild"],
            types=_types(field),
            description=field.metadata["help"],
        )
    app.connect("config-inited", check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
