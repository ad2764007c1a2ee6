"""Pod volumes and their sources."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)

from ..defaulting import VOLUME_SOURCES
from .common import (
    Errors,
    as_dict,
    child,
    dict_items,
    dns1123_label,
    get_bool,
    get_int,
    get_opt_str,
    get_str,
    quantity_field,
)

HOST_PATH_TYPES: Final = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
]
_FILE_MODE_MSG: Final = "must be a number between 0 and 0777 (octal), both inclusive"


# --- volumes ----------------------------------------------------------------------


def _file_mode(source: dict[str, Any], path: str, errs: Errors) -> None:
    mode = get_int(source, "defaultMode", path, errs)
    if isinstance(mode, int) and not 0 <= mode <= 0o777:
        errs.append(invalid(child(path, "defaultMode"), mode, _FILE_MODE_MSG))


def _validate_volume_source(name: str, source: dict[str, Any], path: str, errs: Errors) -> None:
    if name == "emptyDir":
        medium = get_str(source, "medium", path, errs)
        if (
            isinstance(medium, str)
            and medium not in ("", "Memory", "HugePages")
            and not medium.startswith("HugePages-")
        ):
            errs.append(not_supported(child(path, "medium"), medium, ["", "HugePages", "Memory"]))
        size = quantity_field(source.get("sizeLimit"), child(path, "sizeLimit"), errs)
        if size is not None and size.sign() < 0:
            errs.append(forbidden(child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
    elif name == "hostPath":
        if get_str(source, "path", path, errs) == "":
            errs.append(required(child(path, "path"), ""))
        host_type = get_opt_str(source, "type", path, errs)
        if isinstance(host_type, str) and host_type not in HOST_PATH_TYPES:
            errs.append(not_supported(child(path, "type"), host_type, HOST_PATH_TYPES))
    elif name == "secret":
        if get_str(source, "secretName", path, errs) == "":
            errs.append(required(child(path, "secretName"), ""))
        _file_mode(source, path, errs)
    elif name == "configMap":
        if get_str(source, "name", path, errs) == "":
            errs.append(required(child(path, "name"), ""))
        _file_mode(source, path, errs)
    elif name == "persistentVolumeClaim":
        if get_str(source, "claimName", path, errs) == "":
            errs.append(required(child(path, "claimName"), ""))
        get_bool(source, "readOnly", path, errs)
    elif name == "nfs":
        if get_str(source, "server", path, errs) == "":
            errs.append(required(child(path, "server"), ""))
        nfs_path = get_str(source, "path", path, errs)
        if nfs_path == "":
            errs.append(required(child(path, "path"), ""))
        elif isinstance(nfs_path, str) and not nfs_path.startswith("/"):
            errs.append(invalid(child(path, "path"), nfs_path, "must be an absolute path"))
    elif name in ("downwardAPI", "projected"):
        _file_mode(source, path, errs)


def validate_volumes(volumes: list[Any] | None, path: str, errs: Errors) -> set[str]:
    """Validate the volumes and return the names of the valid ones (what volumeMounts may use)."""
    names: set[str] = set()
    for _, vol_path, vol in dict_items(volumes, path, errs):
        vol_errs: Errors = []
        count = 0
        for source_name in VOLUME_SOURCES:
            raw = vol.get(source_name)
            if raw is None:
                continue
            source_path = child(vol_path, source_name)
            source = as_dict(raw, source_path, vol_errs)
            if source is None:
                continue
            if count > 0:
                vol_errs.append(forbidden(source_path, "may not specify more than 1 volume type"))
                continue
            count += 1
            _validate_volume_source(source_name, source, source_path, vol_errs)
        if count == 0 and not vol_errs:
            vol_errs.append(required(vol_path, "must specify a volume type"))
        name = get_str(vol, "name", vol_path, vol_errs)
        name_path = child(vol_path, "name")
        if name == "":
            vol_errs.append(required(name_path, ""))
        elif isinstance(name, str):
            vol_errs.extend(dns1123_label(name, name_path))
            if name in names:
                vol_errs.append(duplicate(name_path, name))
        if not vol_errs and isinstance(name, str):
            names.add(name)
        errs.extend(vol_errs)
    return names
