import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { OrgsimProvider } from "./api/OrgsimProvider";
import { App } from "./App";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <OrgsimProvider>
      <App />
    </OrgsimProvider>
  </StrictMode>,
);
