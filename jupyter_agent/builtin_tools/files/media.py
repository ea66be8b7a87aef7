"""Files that are not text: images the model can look at, and binary formats it should open in the kernel instead."""

from __future__ import annotations

from pathlib import Path

from ...base.errors import ToolError
from ...base.images import NotAnImage
from ...base.images import image_content as checked_image
from ...base.result import ImageContent

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})

#: Formats a notebook user loads with a library; the hint names the call so the model can do it in a cell.
_LOADERS: dict[str, str] = {
    ".parquet": "pandas.read_parquet",
    ".feather": "pandas.read_feather",
    ".arrow": "pyarrow.ipc.open_file",
    ".xlsx": "pandas.read_excel",
    ".xls": "pandas.read_excel",
    ".npy": "numpy.load",
    ".npz": "numpy.load",
    ".pkl": "pandas.read_pickle",
    ".pickle": "pandas.read_pickle",
    ".h5": "pandas.read_hdf or h5py.File",
    ".hdf5": "pandas.read_hdf or h5py.File",
    ".sqlite": "sqlite3.connect",
    ".db": "sqlite3.connect",
    ".pdf": "a PDF library such as pypdf",
}
_BINARY_SUFFIXES = frozenset(
    {*_LOADERS, ".zip", ".gz", ".bz2", ".xz", ".7z", ".tar", ".exe", ".dll", ".so", ".dylib", ".bin", ".pyc"}
    | {".o", ".a", ".class", ".jar", ".whl", ".mp3", ".mp4", ".wav", ".avi", ".mov", ".mkv", ".ico", ".bmp"}
    | {".tif", ".tiff", ".woff", ".woff2", ".ttf", ".otf", ".docx", ".pptx", ".odt", ".ods"}
)


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def known_binary(path: Path) -> bool:
    """Formats that are binary whatever their first bytes look like (a PDF starts with readable text)."""
    return path.suffix.lower() in _BINARY_SUFFIXES


def binary_error(path: Path, shown: str) -> ToolError:
    loader = _LOADERS.get(path.suffix.lower())
    how = (
        f"load it in the kernel with {loader} and look at it there"
        if loader
        else ("inspect it from Python in the kernel instead (or Grep to search it)")
    )
    return ToolError("BINARY_FILE", f"'{shown}' is a binary file and can't be shown as text; {how}")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    if size < 1024**3:
        return f"{size / 1024**2:.1f} MB"
    return f"{size / 1024**3:.1f} GB"


def image_content(path: Path, shown: str, max_bytes: int) -> tuple[ImageContent, bytes]:
    """The image as a base64 block and its bytes; `FILE_TOO_LARGE` / `BINARY_FILE` when it can't be sent."""
    size = path.stat().st_size
    if size > max_bytes:
        raise ToolError(
            "FILE_TOO_LARGE",
            f"'{shown}' is {human_size(size)}, over the {human_size(max_bytes)} limit for images; "
            "save a smaller copy (e.g. resized with PIL) and Read that",
        )
    data = path.read_bytes()
    image = checked_image(data)
    if isinstance(image, NotAnImage):
        raise ToolError(
            "BINARY_FILE",
            f"'{shown}' has an image extension but is not an image the model can read: {image.reason}; "
            "check the file in the kernel (e.g. with PIL.Image.open)",
        )
    return image, data
