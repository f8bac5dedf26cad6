//! Bounds-checked byte reading and writing shared by every layer.
//!
//! Decoders in this crate never panic on bad input: every read goes through [`Reader`], which
//! returns [`ReadError`] when the input ends early or a length is absurd.

use thiserror::Error;

/// Why a read failed. Decoders wrap this with the context of what they were reading.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReadError {
    #[error("unexpected end of input: needed {needed} bytes at offset {offset}, {available} available")]
    Eof { offset: usize, needed: usize, available: usize },
    #[error("varint too long at offset {0}")]
    VarIntTooLong(usize),
    #[error("length {len} exceeds limit {limit} at offset {offset}")]
    TooLong { offset: usize, len: u64, limit: u64 },
    #[error("invalid UTF-8 string at offset {0}")]
    Utf8(usize),
    #[error("{0}")]
    Invalid(String),
}

/// A cursor over a byte slice with bounds-checked reads.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Readers of fixed-width numbers: `name: type::from_xx_bytes`.
macro_rules! fixed_width {
    ($($name:ident: $ty:ident::$from:ident,)*) => {$(
        pub fn $name(&mut self) -> Result<$ty, ReadError> {
            Ok($ty::$from(self.array()?))
        }
    )*};
}

/// Writers of fixed-width numbers: `name: type::to_xx_bytes`.
macro_rules! put_fixed_width {
    ($($name:ident: $ty:ident::$to:ident,)*) => {$(
        fn $name(&mut self, v: $ty) {
            self.put_bytes(&v.$to());
        }
    )*};
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.buf[self.pos..];
        self.pos = self.buf.len();
        r
    }
    pub fn peek_u8(&self) -> Result<u8, ReadError> {
        self.buf.get(self.pos).copied().ok_or(ReadError::Eof { offset: self.pos, needed: 1, available: 0 })
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        if self.remaining() < n {
            return Err(ReadError::Eof { offset: self.pos, needed: n, available: self.remaining() });
        }
        let r = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(r)
    }
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }
    pub fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.array::<1>()?[0])
    }
    pub fn i8(&mut self) -> Result<i8, ReadError> {
        Ok(self.u8()? as i8)
    }
    pub fn bool(&mut self) -> Result<bool, ReadError> {
        Ok(self.u8()? != 0)
    }
    fixed_width! {
        u16_be: u16::from_be_bytes,
        u16_le: u16::from_le_bytes,
        i16_le: i16::from_le_bytes,
        i16_be: i16::from_be_bytes,
        u32_be: u32::from_be_bytes,
        u32_le: u32::from_le_bytes,
        i32_be: i32::from_be_bytes,
        i32_le: i32::from_le_bytes,
        u64_be: u64::from_be_bytes,
        u64_le: u64::from_le_bytes,
        i64_be: i64::from_be_bytes,
        i64_le: i64::from_le_bytes,
        f32_le: f32::from_le_bytes,
        f64_le: f64::from_le_bytes,
        f32_be: f32::from_be_bytes,
        f64_be: f64::from_be_bytes,
    }
    pub fn u24_le(&mut self) -> Result<u32, ReadError> {
        let b = self.array::<3>()?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }
    /// Unsigned LEB128, at most 5 bytes (bits past the 32nd are dropped).
    pub fn var_u32(&mut self) -> Result<u32, ReadError> {
        self.leb128(5).map(|v| v as u32)
    }
    /// Unsigned LEB128, at most 10 bytes.
    pub fn var_u64(&mut self) -> Result<u64, ReadError> {
        self.leb128(10)
    }
    /// Unsigned LEB128 of at most `max_bytes` bytes (at most 10).
    fn leb128(&mut self, max_bytes: u32) -> Result<u64, ReadError> {
        let start = self.pos;
        let mut out: u64 = 0;
        for i in 0..max_bytes {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(ReadError::VarIntTooLong(start))
    }
    /// ZigZag + LEB128 signed 32-bit.
    pub fn var_i32(&mut self) -> Result<i32, ReadError> {
        let v = self.var_u32()?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }
    /// ZigZag + LEB128 signed 64-bit.
    pub fn var_i64(&mut self) -> Result<i64, ReadError> {
        let v = self.var_u64()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
    /// A length that must fit in what is left of the input (each element at least `min_elem` bytes).
    pub fn checked_len(&self, len: u64, min_elem: usize) -> Result<usize, ReadError> {
        let limit = (self.remaining() / min_elem.max(1)) as u64;
        if len > limit {
            return Err(ReadError::TooLong { offset: self.pos, len, limit });
        }
        Ok(len as usize)
    }
    /// varu32 length + bytes.
    pub fn var_bytes(&mut self) -> Result<&'a [u8], ReadError> {
        let len = u64::from(self.var_u32()?);
        let len = self.checked_len(len, 1)?;
        self.bytes(len)
    }
    /// varu32 length + UTF-8.
    pub fn var_string(&mut self) -> Result<String, ReadError> {
        let at = self.pos;
        let b = self.var_bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| ReadError::Utf8(at))
    }
}

/// Appending writers for the same primitives.
pub trait WriteExt {
    fn put_u8(&mut self, v: u8);
    fn put_bytes(&mut self, v: &[u8]);
    fn put_bool(&mut self, v: bool) {
        self.put_u8(u8::from(v));
    }
    put_fixed_width! {
        put_u16_be: u16::to_be_bytes,
        put_u16_le: u16::to_le_bytes,
        put_u32_be: u32::to_be_bytes,
        put_u32_le: u32::to_le_bytes,
        put_i32_be: i32::to_be_bytes,
        put_i32_le: i32::to_le_bytes,
        put_u64_be: u64::to_be_bytes,
        put_u64_le: u64::to_le_bytes,
        put_i64_be: i64::to_be_bytes,
        put_i64_le: i64::to_le_bytes,
        put_f32_le: f32::to_le_bytes,
    }
    fn put_u24_le(&mut self, v: u32) {
        self.put_bytes(&v.to_le_bytes()[..3]);
    }
    fn put_var_u32(&mut self, v: u32) {
        self.put_var_u64(u64::from(v));
    }
    fn put_var_u64(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.put_u8(b);
                return;
            }
            self.put_u8(b | 0x80);
        }
    }
    fn put_var_i32(&mut self, v: i32) {
        self.put_var_u32(((v << 1) ^ (v >> 31)) as u32);
    }
    fn put_var_i64(&mut self, v: i64) {
        self.put_var_u64(((v << 1) ^ (v >> 63)) as u64);
    }
    fn put_var_bytes(&mut self, v: &[u8]) {
        self.put_var_u32(v.len() as u32);
        self.put_bytes(v);
    }
    fn put_var_string(&mut self, v: &str) {
        self.put_var_bytes(v.as_bytes());
    }
}

impl WriteExt for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_bytes(&mut self, v: &[u8]) {
        self.extend_from_slice(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0i32, 1, -1, 63, -64, 64, i32::MAX, i32::MIN] {
            let mut b = Vec::new();
            b.put_var_i32(v);
            assert_eq!(Reader::new(&b).var_i32(), Ok(v));
        }
        for v in [0u64, 127, 128, 300, u64::MAX] {
            let mut b = Vec::new();
            b.put_var_u64(v);
            assert_eq!(Reader::new(&b).var_u64(), Ok(v));
        }
        // PlayerAuthInput id 0x90 takes two bytes.
        let mut b = Vec::new();
        b.put_var_u32(0x90);
        assert_eq!(b, [0x90, 0x01]);
    }

    #[test]
    fn reads_fail_instead_of_panicking() {
        let mut r = Reader::new(&[0xff, 0xff]);
        assert!(r.var_u32().is_err());
        let mut r = Reader::new(&[0x05, b'a']);
        assert!(matches!(r.var_string(), Err(ReadError::TooLong { .. })));
        let mut r = Reader::new(&[0xff; 11]);
        assert_eq!(r.var_u64(), Err(ReadError::VarIntTooLong(0)));
    }
}
