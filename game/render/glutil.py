"""Thin GL helpers: programs loaded from ``shaders/``, vertex arrays fed from numpy.

Uploads go straight from numpy memory (``glBufferData`` with the array's
pointer), so per-frame data costs one call per buffer, not a Python loop.
Matrices are numpy row-major in column-vector convention and are uploaded
with ``transpose=GL_TRUE``.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
from pyglet import gl

SHADERS = Path(__file__).resolve().parents[2] / "shaders"

_KIND = {".vert": gl.GL_VERTEX_SHADER, ".frag": gl.GL_FRAGMENT_SHADER, ".geom": gl.GL_GEOMETRY_SHADER}


class ShaderError(RuntimeError):
    """A shader in shaders/ failed to compile or link; the message names the file and the log."""


def _log(obj, getiv, getlog) -> str:
    n = gl.GLint()
    getiv(obj, gl.GL_INFO_LOG_LENGTH, ctypes.byref(n))
    buf = ctypes.create_string_buffer(max(n.value, 1))
    getlog(obj, n, None, buf)
    return buf.value.decode(errors="replace")


def _compile(path: Path) -> int:
    src = path.read_bytes()
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

    def __init__(self, *names: str):
        shaders = []
        for name in names:
            path = SHADERS / name
            if not path.is_file():
                raise ShaderError(f"shader {path} is missing (expected in shaders/)")
            shaders.append(_compile(path))
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

    def use(self) -> None:
        gl.glUseProgram(self.id)

    def loc(self, name: str) -> int:
        loc = self._loc.get(name)
        if loc is None:
            loc = self._loc[name] = gl.glGetUniformLocation(self.id, name.encode())
        return loc

    def mat4(self, name: str, m: np.ndarray) -> None:
        a = np.ascontiguousarray(m, dtype=np.float32)
        n = a.size // 16
        gl.glUniformMatrix4fv(self.loc(name), n, gl.GL_TRUE, a.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))

    def vec(self, name: str, v) -> None:
        a = np.ascontiguousarray(v, dtype=np.float32).ravel()
        fn = {1: gl.glUniform1fv, 2: gl.glUniform2fv, 3: gl.glUniform3fv, 4: gl.glUniform4fv}[a.size]
        fn(self.loc(name), 1, a.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))

    def vec3_array(self, name: str, v: np.ndarray) -> None:
        a = np.ascontiguousarray(v, dtype=np.float32)
        gl.glUniform3fv(self.loc(name), a.size // 3, a.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))

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

    def set_vertices(self, data: np.ndarray, dynamic: bool = False) -> None:
        data = np.ascontiguousarray(data, dtype=np.float32)
        gl.glBindVertexArray(0)
        self._upload(gl.GL_ARRAY_BUFFER, self.vbo, data, gl.GL_DYNAMIC_DRAW if dynamic else gl.GL_STATIC_DRAW)
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


class ShadowMap:
    """A depth texture + framebuffer for a directional light's shadow pass."""

    def __init__(self, size: int = 1024):
        self.size = size
        self.tex = gl.GLuint()
        gl.glGenTextures(1, ctypes.byref(self.tex))
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.tex)
        gl.glTexImage2D(gl.GL_TEXTURE_2D, 0, gl.GL_DEPTH_COMPONENT24, size, size, 0,
                        gl.GL_DEPTH_COMPONENT, gl.GL_FLOAT, None)
        for p, v in ((gl.GL_TEXTURE_MIN_FILTER, gl.GL_LINEAR), (gl.GL_TEXTURE_MAG_FILTER, gl.GL_LINEAR),
                     (gl.GL_TEXTURE_WRAP_S, gl.GL_CLAMP_TO_BORDER), (gl.GL_TEXTURE_WRAP_T, gl.GL_CLAMP_TO_BORDER),
                     (gl.GL_TEXTURE_COMPARE_MODE, gl.GL_COMPARE_REF_TO_TEXTURE),
                     (gl.GL_TEXTURE_COMPARE_FUNC, gl.GL_LEQUAL)):
            gl.glTexParameteri(gl.GL_TEXTURE_2D, p, v)
        border = (gl.GLfloat * 4)(1, 1, 1, 1)
        gl.glTexParameterfv(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_BORDER_COLOR, border)
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        self.fbo = gl.GLuint()
        gl.glGenFramebuffers(1, ctypes.byref(self.fbo))
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glFramebufferTexture2D(gl.GL_FRAMEBUFFER, gl.GL_DEPTH_ATTACHMENT, gl.GL_TEXTURE_2D, self.tex, 0)
        gl.glDrawBuffer(gl.GL_NONE)
        gl.glReadBuffer(gl.GL_NONE)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)

    def begin(self) -> None:
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glViewport(0, 0, self.size, self.size)
        gl.glClear(gl.GL_DEPTH_BUFFER_BIT)

    @staticmethod
    def end(viewport) -> None:
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        gl.glViewport(*viewport)


def read_pixels(width: int, height: int) -> np.ndarray:
    """The current colour buffer as ``(height, width, 3) uint8``, top row first."""
    buf = np.empty((height, width, 4), dtype=np.uint8)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glReadPixels(0, 0, width, height, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, buf.ctypes.data_as(ctypes.c_void_p))
    return buf[::-1, :, :3].copy()
