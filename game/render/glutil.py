"""Thin GL helpers: programs loaded from ``shaders/``, vertex arrays fed from numpy.

Uploads go straight from numpy memory (``glBufferData`` with the array's
pointer), so per-frame data costs one call per buffer, not a Python loop.
Matrices are numpy row-major in column-vector convention and are uploaded
with ``transpose=GL_TRUE``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pyglet import gl

from game import files

SHADERS = Path(__file__).resolve().parents[2] / "shaders"
#: The most bytes a shader source may have: the largest in shaders/ is under 4 kB.
MAX_SHADER_BYTES = 256 << 10

_KIND = {".vert": gl.GL_VERTEX_SHADER, ".frag": gl.GL_FRAGMENT_SHADER, ".geom": gl.GL_GEOMETRY_SHADER}


#: glUniform{1,2,3,4}f by vector size
_UNIFORM_F: dict[int, Callable[..., None]] = {
    1: gl.glUniform1f, 2: gl.glUniform2f, 3: gl.glUniform3f, 4: gl.glUniform4f}


class ShaderError(RuntimeError):
    """A shader in shaders/ failed to compile or link; the message names the file and the log."""


class ShaderFileError(ShaderError):
    """A shader's path cannot be read as a file (missing, a directory, a FIFO, a device, a
    socket, a symbolic-link loop, unreadable, too large); ``reason`` is
    :attr:`game.files.FileUnusable.reason`.  The command line reports it in one line."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def _read_shader(path: Path, named_by: str = "") -> bytes:
    """The bytes of the shader source ``path`` (:func:`game.files.read_bounded`)."""
    try:
        return files.read_bounded(path, "a shader source", MAX_SHADER_BYTES)
    except files.FileUnusable as exc:
        fix = {files.PERMISSION: f"make it readable (chmod u+r {path})",
               files.UNREADABLE: "check the shaders/ folder"}.get(exc.reason, "restore it (git checkout -- shaders)")
        raise ShaderFileError(f"{named_by}{exc}; {fix}", exc.reason) from None


def _log(obj, getiv, getlog) -> str:
    n = gl.GLint()
    getiv(obj, gl.GL_INFO_LOG_LENGTH, ctypes.byref(n))
    buf = ctypes.create_string_buffer(max(n.value, 1))
    getlog(obj, n, None, buf)
    return buf.value.decode(errors="replace")


def _compile(path: Path, defines: dict | None = None) -> int:
    src = _read_shader(path)
    while b"\n#include " in src:      # textual include of another file in shaders/
        a = src.index(b"\n#include ") + 1
        b = src.index(b"\n", a)
        name = src[a + 9:b].strip().decode()
        src = src[:a] + _read_shader(SHADERS / name, f"{path}: #include {name}: ") + src[b:]
    if defines:     # after the #version line
        head, _, rest = src.partition(b"\n")
        src = head + b"\n" + b"".join(f"#define {k} {v}\n".encode() for k, v in defines.items()) + rest
    sh = gl.glCreateShader(_KIND[path.suffix])
    arr = ctypes.c_char_p(src)
    gl.glShaderSource(sh, 1, ctypes.cast(ctypes.pointer(arr), ctypes.POINTER(ctypes.POINTER(ctypes.c_char))), None)
    gl.glCompileShader(sh)
    ok = gl.GLint()
    gl.glGetShaderiv(sh, gl.GL_COMPILE_STATUS, ctypes.byref(ok))
    if not ok.value:
        raise ShaderError(f"{path}: compile failed: {_log(sh, gl.glGetShaderiv, gl.glGetShaderInfoLog)}")
    return sh


class Program:
    """A GLSL 330 core program built from files in ``shaders/``; raw uniform setters."""

    def __init__(self, *names: str, defines: dict | None = None):
        shaders = []
        for name in names:
            shaders.append(_compile(SHADERS / name, defines))
        self.id = gl.glCreateProgram()
        for sh in shaders:
            gl.glAttachShader(self.id, sh)
        gl.glLinkProgram(self.id)
        ok = gl.GLint()
        gl.glGetProgramiv(self.id, gl.GL_LINK_STATUS, ctypes.byref(ok))
        for sh in shaders:
            gl.glDeleteShader(sh)
        if not ok.value:
            raise ShaderError(f"link of {', '.join(names)} failed: "
                              f"{_log(self.id, gl.glGetProgramiv, gl.glGetProgramInfoLog)}")
        self._loc: dict[str, int] = {}
        self._mats: dict[str, tuple] = {}       # mat4 uniform -> (ctypes buffer, numpy view)

    def use(self) -> None:
        gl.glUseProgram(self.id)

    def loc(self, name: str) -> int:
        loc = self._loc.get(name)
        if loc is None:
            loc = self._loc[name] = gl.glGetUniformLocation(self.id, name.encode())
        return loc

    def mat4(self, name: str, m: np.ndarray) -> None:
        """Upload ``m`` ``(4, 4)`` or ``(n, 4, 4)`` (row-major, column-vector convention) to a
        ``mat4`` or ``mat4[n]`` uniform.  Each uniform keeps one float32 ctypes buffer with a
        numpy view on it: a frame's upload is one cast-and-copy and one GL call (no ctypes
        pointer cast, which costs more than the copy)."""
        m = np.asarray(m)
        buf = self._mats.get(name)
        if buf is None or buf[1].shape != m.shape:
            raw = (gl.GLfloat * m.size)()
            buf = self._mats[name] = (raw, np.frombuffer(memoryview(raw), dtype=np.float32).reshape(m.shape))
        buf[1][...] = m
        gl.glUniformMatrix4fv(self.loc(name), m.size // 16, gl.GL_TRUE, buf[0])

    def vec(self, name: str, v) -> None:
        """Set a ``float`` / ``vec2`` / ``vec3`` / ``vec4`` uniform from a number, a sequence
        or an array of 1-4 numbers (by value: ``glUniformNf``, no array round trip)."""
        if isinstance(v, np.ndarray):
            vals = v.ravel().tolist()
        elif isinstance(v, (tuple, list)):
            vals = [float(x) for x in v]
        else:
            vals = [float(v)]
        fn = _UNIFORM_F.get(len(vals))
        if fn is None:
            raise ValueError(f"uniform {name}: expected 1-4 numbers, got {len(vals)}")
        fn(self.loc(name), *vals)

    def int(self, name: str, i: int) -> None:
        gl.glUniform1i(self.loc(name), int(i))


class VertexArray:
    """A VAO with one interleaved float32 vertex buffer, optional index buffer and
    optional per-instance buffer.  ``layout`` is ``[(location, size), ...]``."""

    def __init__(self, layout, instance_layout=None, *, indexed: bool = False):
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        self.vbo = self._buffer()
        self._attrib(self.vbo, layout, divisor=0)
        self.ibo = None
        if indexed:
            self.ibo = self._buffer()
            gl.glBindBuffer(gl.GL_ELEMENT_ARRAY_BUFFER, self.ibo)
        self.inst = None
        if instance_layout:
            self.inst = self._buffer()
            self._attrib(self.inst, instance_layout, divisor=1)
        gl.glBindVertexArray(0)
        self.count = 0
        self.instances = 0

    @staticmethod
    def _buffer():
        b = gl.GLuint()
        gl.glGenBuffers(1, ctypes.byref(b))
        return b

    @staticmethod
    def _attrib(buf, layout, divisor):
        gl.glBindBuffer(gl.GL_ARRAY_BUFFER, buf)
        stride = sum(size for _, size in layout) * 4
        offset = 0
        for loc, size in layout:
            gl.glEnableVertexAttribArray(loc)
            gl.glVertexAttribPointer(loc, size, gl.GL_FLOAT, gl.GL_FALSE, stride, ctypes.c_void_p(offset))
            gl.glVertexAttribDivisor(loc, divisor)
            offset += size * 4

    @staticmethod
    def _upload(target, buf, data: np.ndarray, usage):
        gl.glBindBuffer(target, buf)
        gl.glBufferData(target, data.nbytes, data.ctypes.data_as(ctypes.c_void_p) if data.size else None, usage)

    def set_vertices(self, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data, dtype=np.float32)
        gl.glBindVertexArray(0)
        self._upload(gl.GL_ARRAY_BUFFER, self.vbo, data, gl.GL_STATIC_DRAW)
        if self.ibo is None:
            self.count = data.shape[0]

    def set_indices(self, idx: np.ndarray) -> None:
        idx = np.ascontiguousarray(idx, dtype=np.uint32)
        gl.glBindVertexArray(self.vao)
        self._upload(gl.GL_ELEMENT_ARRAY_BUFFER, self.ibo, idx, gl.GL_STATIC_DRAW)
        gl.glBindVertexArray(0)
        self.count = idx.size

    def set_instances(self, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data, dtype=np.float32)
        self._upload(gl.GL_ARRAY_BUFFER, self.inst, data, gl.GL_STREAM_DRAW)
        self.instances = data.shape[0] if data.ndim > 1 else 0

    def draw_range(self, first: int, count: int, mode=gl.GL_TRIANGLES) -> None:
        """Non-indexed, non-instanced: vertices ``first .. first + count``."""
        if count:
            gl.glBindVertexArray(self.vao)
            gl.glDrawArrays(mode, first, count)
            gl.glBindVertexArray(0)

    def draw(self, mode=gl.GL_TRIANGLES) -> None:
        if self.count == 0 or (self.inst is not None and self.instances == 0):
            return
        gl.glBindVertexArray(self.vao)
        if self.inst is not None:
            if self.ibo is not None:
                gl.glDrawElementsInstanced(mode, self.count, gl.GL_UNSIGNED_INT, None, self.instances)
            else:
                gl.glDrawArraysInstanced(mode, 0, self.count, self.instances)
        elif self.ibo is not None:
            gl.glDrawElements(mode, self.count, gl.GL_UNSIGNED_INT, None)
        else:
            gl.glDrawArrays(mode, 0, self.count)
        gl.glBindVertexArray(0)


def read_pixels(width: int, height: int) -> np.ndarray:
    """The current colour buffer as ``(height, width, 3) uint8``, top row first."""
    buf = np.empty((height, width, 4), dtype=np.uint8)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glReadPixels(0, 0, width, height, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, buf.ctypes.data_as(ctypes.c_void_p))
    return buf[::-1, :, :3].copy()


class RenderTarget:
    """An offscreen colour texture + depth/stencil framebuffer for rendering the 3D scene at
    a lower internal resolution; ``present`` draws it over the window with bilinear filtering
    (a textured triangle: on llvmpipe ``glBlitFramebuffer`` with GL_LINEAR costs several times more)."""

    def __init__(self):
        self.fbo = gl.GLuint()
        gl.glGenFramebuffers(1, ctypes.byref(self.fbo))
        self.color = gl.GLuint()
        gl.glGenTextures(1, ctypes.byref(self.color))
        self.depth = gl.GLuint()
        gl.glGenRenderbuffers(1, ctypes.byref(self.depth))
        self.size = (0, 0)
        self.prog = None
        self.vao = None

    def ensure(self, width: int, height: int) -> None:
        if (width, height) == self.size:
            return
        self.size = (width, height)
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.color)
        gl.glTexImage2D(gl.GL_TEXTURE_2D, 0, gl.GL_RGBA8, width, height, 0, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, None)
        for p, v in ((gl.GL_TEXTURE_MIN_FILTER, gl.GL_LINEAR), (gl.GL_TEXTURE_MAG_FILTER, gl.GL_LINEAR),
                     (gl.GL_TEXTURE_WRAP_S, gl.GL_CLAMP_TO_EDGE), (gl.GL_TEXTURE_WRAP_T, gl.GL_CLAMP_TO_EDGE)):
            gl.glTexParameteri(gl.GL_TEXTURE_2D, p, v)
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        gl.glBindRenderbuffer(gl.GL_RENDERBUFFER, self.depth)
        gl.glRenderbufferStorage(gl.GL_RENDERBUFFER, gl.GL_DEPTH24_STENCIL8, width, height)
        gl.glBindRenderbuffer(gl.GL_RENDERBUFFER, 0)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glFramebufferTexture2D(gl.GL_FRAMEBUFFER, gl.GL_COLOR_ATTACHMENT0, gl.GL_TEXTURE_2D, self.color, 0)
        gl.glFramebufferRenderbuffer(gl.GL_FRAMEBUFFER, gl.GL_DEPTH_STENCIL_ATTACHMENT, gl.GL_RENDERBUFFER, self.depth)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)

    def bind(self) -> None:
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glViewport(0, 0, *self.size)

    def present(self, width: int, height: int) -> None:
        """Draw the target scaled over the whole default framebuffer, and leave that bound."""
        if self.prog is None:
            self.prog = Program("upscale.vert", "upscale.frag")
            self.vao = VertexArray([(0, 1)])
            self.vao.count = 3
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        gl.glViewport(0, 0, width, height)
        gl.glDisable(gl.GL_DEPTH_TEST)
        gl.glDisable(gl.GL_BLEND)
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE)
        self.prog.use()
        self.prog.int("u_scene", 0)
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.color)
        self.vao.draw()
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        gl.glUseProgram(0)
