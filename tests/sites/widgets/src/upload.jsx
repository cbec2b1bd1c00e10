// Ant Design's drag-and-drop upload (Upload.Dragger, over rc-upload) as an app would use it: a
// dropped file is sent to the server at once; the app shows each file's name and status.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Upload } from 'antd';

function App() {
  const [files, setFiles] = useState([]);
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  return (
    <main style={{ padding: 16, display: 'grid', gap: 16, maxWidth: 360 }}>
      <h1>Your documents</h1>
      <Upload.Dragger name="document" action="/widgets/upload" multiple={false} showUploadList={false}
        onChange={({ fileList }) => setFiles(fileList.map(({ name, status }) => ({ name, status })))}>
        <p>Drop your portfolio here, or click to choose it</p>
      </Upload.Dragger>
      <output id="uploaded">{files.map(({ name, status }) => `${name}: ${status}`).join('; ') || 'none'}</output>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
